/** `questions [RUN]` and `answer RUN QUESTION "text"`: what sessions asked a person, and the person's answer. */
import type { Command } from 'commander';
import { openQuestions, type Question } from '../handoff/questions.js';
import { answerRunQuestion } from '../orchestrator/controls.js';
import { type CliDeps, orchestratorOptions, resolveDeps, withOrchestrator } from './context.js';
import { runOrNewest } from './follow-command.js';
import { formatTable, formatTimestamp } from './output.js';
import { oneLine } from './terminal-text.js';

interface QuestionsCliOptions {
  json?: boolean;
  all?: boolean;
  config?: string;
}

/** The questions as a table: id, feature, status, question (options), answer. */
export function formatQuestionsTable(runId: string, questions: readonly Question[]): string {
  if (questions.length === 0) return `Run ${runId} has no questions.`;
  const table = formatTable(
    ['QUESTION', 'FEATURE', 'ASKED', 'STATUS', 'TEXT'],
    questions.map((question) => [
      question.id,
      question.featureId,
      formatTimestamp(question.askedAt),
      question.answer === null ? 'open' : `answered (${question.answeredBy})`,
      oneLine(
        `${question.question}${question.options.length ? ` [${question.options.join(' | ')}]` : ''}${
          question.answer === null ? '' : ` → ${question.answer}`
        }`,
        160,
      ),
    ]),
  );
  const open = openQuestions(questions);
  const hint = open[0] ? `\nAnswer with \`nightshift answer ${runId} ${open[0].id} "text"\`.` : '';
  return `${table}${hint}`;
}

/** Registers `questions [RUN]` and `answer RUN QUESTION TEXT`. */
export function registerQuestionsCommands(program: Command, deps: CliDeps = {}): void {
  const resolved = resolveDeps(deps);
  program
    .command('questions')
    .description("list a run's questions to a person (open ones first; --all: answered ones too)")
    .argument('[run]', 'run id (default: the newest run)')
    .option('--all', 'answered questions too')
    .option('--json', 'print the questions as a JSON array')
    .option('--config <file>', 'config file')
    .action((runId: string | undefined, options: QuestionsCliOptions) =>
      withOrchestrator(orchestratorOptions(resolved, options.config), async ({ orchestrator }) => {
        const id = await runOrNewest(orchestrator, runId);
        const run = await orchestrator.store.getRun(id);
        const shown = options.all || options.json ? run.questions : openQuestions(run.questions);
        if (options.json) return void resolved.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
        const answered = run.questions.length - openQuestions(run.questions).length;
        const more = !options.all && answered > 0 ? `\n(${answered} answered: --all shows them)` : '';
        resolved.stdout.write(`${formatQuestionsTable(id, shown)}${more}\n`);
      }),
    );
  program
    .command('answer')
    .description('answer a question a session asked; its feature goes on with the answer')
    .argument('<run>', 'run id')
    .argument('<question>', 'question id, e.g. Q-1')
    .argument('<text>', 'the answer')
    .option('--json', 'print the answered question as JSON')
    .option('--config <file>', 'config file')
    .action((runId: string, questionId: string, text: string, options: QuestionsCliOptions) =>
      withOrchestrator(orchestratorOptions(resolved, options.config), async ({ orchestrator }) => {
        const question = await answerRunQuestion(orchestrator, runId, questionId, text, 'cli');
        if (options.json) return void resolved.stdout.write(`${JSON.stringify(question, null, 2)}\n`);
        resolved.stdout.write(
          `${question.id} answered: ${question.featureId}'s next session gets the answer in its brief.\n`,
        );
      }),
    );
}
