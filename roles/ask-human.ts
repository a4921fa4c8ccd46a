import type { LoopHooks } from '../agent/loop.js';
import { ToolError } from '../agent/tool.js';
import { createAskHumanTool } from '../agent/tools/index.js';
import { checkpoint, type WorkspaceRepo } from '../handoff/git.js';
import { QUESTIONS_FILE, type Question, writeQuestionsFile } from '../handoff/questions.js';
import type { RoleSessionInput } from './types.js';

/** What a session's `ask_human` recorded: the question it asked (the session then ends), if any. */
export class AskedQuestion {
  question: Question | undefined;
}

/**
 * The `ask_human` tool of a session that may ask (the run gave it `askHuman`), bound to the session's features;
 * `refusal` may turn a question about a feature away (an evaluator that judged it already).
 */
export function askHumanTool(
  input: RoleSessionInput,
  asked: AskedQuestion,
  refusal?: (featureId: string) => string | undefined,
) {
  const askHuman = input.askHuman;
  if (!askHuman) return [];
  return [
    createAskHumanTool(async (request) => {
      if (asked.question) throw new ToolError(`You asked ${asked.question.id} already; stop now.`);
      const featureId = request.featureId ?? input.featureIds[0];
      if (!featureId || !input.featureIds.includes(featureId)) {
        throw new ToolError(
          `feature_id must be one of this session's features (${input.featureIds.join(', ') || 'none'}); leave it out for this one.`,
        );
      }
      const refused = refusal?.(featureId);
      if (refused) throw new ToolError(refused);
      const reply = await askHuman({ featureId, question: request.question, options: request.options });
      if (reply.kind === 'decide') return reply;
      asked.question = reply.question;
      return { kind: 'asked', id: reply.question.id };
    }),
  ];
}

/** Ends the session at the turn after it asked: the feature waits for the answer, the work is checkpointed. */
export function endWhenAsked(asked: AskedQuestion): NonNullable<LoopHooks['beforeTurn']> {
  return () =>
    asked.question ? { end: `asked a person (${asked.question.id}); the feature waits for the answer` } : {};
}

/** The answered questions on a feature, as the brief's section: question, options, answer. */
export function answersText(
  questions: readonly Question[] | undefined,
  featureId: string,
): string | undefined {
  const answered = (questions ?? []).filter(
    (question) => question.featureId === featureId && question.answer !== null,
  );
  if (answered.length === 0) return undefined;
  return answered
    .map((question) =>
      [
        `${question.id}: ${question.question}`,
        ...(question.options.length ? [`Options you gave: ${question.options.join(' | ')}`] : []),
        `Answer${question.answeredBy === 'timeout' ? ' (nobody answered in time)' : ''}: ${question.answer}`,
      ].join('\n'),
    )
    .join('\n\n');
}

/**
 * Commits `.nightshift/questions.md` (the harness's commit) when the run has questions: those it knew at the start
 * and the one this session asked. Returns the commit, or null when the file did not change.
 */
export async function commitQuestionsFile(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  asked: AskedQuestion,
): Promise<string | null> {
  const questions = [...(input.questions ?? []), ...(asked.question ? [asked.question] : [])];
  if (questions.length === 0) return null;
  await writeQuestionsFile(repo.dir, questions);
  return checkpoint(repo, {
    role: 'harness',
    runId: input.runId,
    session: input.session,
    ...(input.featureIds[0] ? { featureId: input.featureIds[0] } : {}),
    summary: asked.question ? `question ${asked.question.id} asked` : 'questions and answers',
    paths: [QUESTIONS_FILE],
  });
}
