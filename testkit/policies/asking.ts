/**
 * An opt-in scripted generator that asks a person (`ask_human`) before building chosen features: its first
 * session on such a feature asks and ends; the next one finds the answer in its brief, notes in progress.md what
 * it was told (or, past the run's cap, what it decided itself) and builds the feature as the demo generator does.
 * Its evaluator may ask too: its first evaluation of a chosen feature asks and ends without a verdict; the next one
 * finds the answer in its brief and checks the feature as the demo evaluator does.
 */
import type { Policy } from '../types.js';
import { scriptedPolicy } from './demo.js';
import { evaluatorScript, parseEvaluatorBrief } from './evaluator.js';
import { generatorScript, parseGeneratorBrief } from './generator.js';
import type { ScriptIO } from './script.js';

/** What the asking generator asks, and about which features. */
export interface AskingOptions {
  /** Features whose first generator session asks. */
  featureIds: readonly string[];
  /** The question (default: one about the wording of the page). */
  question?: string;
  /** Features whose first evaluation asks (default none). */
  evaluatorFeatureIds?: readonly string[];
}

/** What the asking evaluator asks. */
export const EVALUATOR_QUESTION = 'Must the list keep its order after a reload?';

/** The question the asking generator sends unless told another. */
export const DEFAULT_QUESTION = 'Should the page say "todos" or "tasks"?';

/**
 * The brief's answers section (roles/orientation.ts: `##` in a generator's brief, `###` under a feature in an
 * evaluator's), up to the next heading or the end of the brief: `$(?![\s\S])`, since under the `m` flag a bare `$` is
 * any line's end and the section would stop after its first line.
 */
const ANSWERS_HEADING =
  /^#{2,3} Answers to the questions asked about this feature[^\n]*\n([\s\S]*?)(?=\n#{1,3} |$(?![\s\S]))/m;

/** The answer lines of the brief's answers section (`Answer…: text`), in order. */
export function answersInBrief(firstMessage: string): string[] {
  const section = ANSWERS_HEADING.exec(firstMessage)?.[1] ?? '';
  return [...section.matchAll(/^Answer[^:\n]*: (.*)$/gm)].map((match) => match[1] as string);
}

/** The generator session: ask first on a chosen feature, use the answer once it is in the brief. */
export function askingGenerator(io: ScriptIO, options: AskingOptions): void {
  const brief = parseGeneratorBrief(io.firstMessage);
  const answers = answersInBrief(io.firstMessage);
  if (brief && options.featureIds.includes(brief.featureId) && io.toolNames.includes('ask_human')) {
    if (answers.length === 0) {
      const reply = io.call(
        'ask_human',
        { question: options.question ?? DEFAULT_QUESTION, options: ['todos', 'tasks'] },
        `Before building ${brief.featureId}: the spec does not say which word the page uses. Asking.`,
      );
      if (/recorded for a person/.test(reply.content)) {
        io.finish('Asked; the harness ends this session.');
        return;
      }
      io.call('bash', {
        command: progressNote(
          `${brief.featureId}: nobody to ask (${reply.content.split('\n')[0]}); I decided myself: "todos".`,
        ),
      });
    } else {
      io.call('bash', {
        command: progressNote(`${brief.featureId}: a person answered: ${answers.join(' / ')}`),
      });
    }
  }
  generatorScript(io);
}

/** The evaluator session: ask first about a chosen feature (no verdict), check it once the answer is in the brief. */
export function askingEvaluator(io: ScriptIO, options: AskingOptions): void {
  const target = parseEvaluatorBrief(io.firstMessage)?.targets.find((candidate) =>
    options.evaluatorFeatureIds?.includes(candidate.featureId),
  );
  if (target && io.toolNames.includes('ask_human') && answersInBrief(io.firstMessage).length === 0) {
    const reply = io.call(
      'ask_human',
      { question: EVALUATOR_QUESTION, options: ['yes', 'no'], feature_id: target.featureId },
      `Before judging ${target.featureId}: its steps do not say whether the order must survive a reload. Asking.`,
    );
    if (/recorded for a person/.test(reply.content)) {
      io.finish('Asked; the harness ends this session.');
      return;
    }
  }
  evaluatorScript(io);
}

/** Bash appending one line to progress.md (quoted heredoc: nothing is expanded). */
function progressNote(line: string): string {
  return `cat >> progress.md <<'PROGRESS_NOTE'\n\n- ${line}\nPROGRESS_NOTE\n`;
}

/** The demo policy whose generator asks before building `featureIds` (and evaluator before judging `evaluatorFeatureIds`). */
export function askingPolicy(options: AskingOptions): Policy {
  return scriptedPolicy({
    generator: (io) => askingGenerator(io, options),
    evaluator: (io) => askingEvaluator(io, options),
  });
}
