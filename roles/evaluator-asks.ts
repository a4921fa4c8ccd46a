/**
 * What a person said reaches the evaluator too: the notes on its features and the answers to questions asked about
 * them go in its brief, and an evaluator judging a feature (not a regression sweep) may ask a person about it. Asking
 * ends the evaluation without a verdict on that feature: it waits for the answer, and its next evaluator session gets
 * the question and the answer in its brief (orchestrator/question-schedule.ts sends an evaluator, not a generator).
 */
import type { LoopHooks } from '../agent/loop.js';
import type { Feature } from '../handoff/formats.js';
import { AskedQuestion, answersText, askHumanTool, endWhenAsked } from './ask-human.js';
import { humanNotesText } from './human-notes.js';
import { ANSWERS_TITLE, NOTES_TITLE } from './orientation.js';
import type { VerdictCollector } from './submit-verdict.js';
import type { RoleSessionInput } from './types.js';

/** The sections after each feature's steps in the evaluator's brief: a person's notes, then the answers. */
export function evaluatorAsides(
  input: RoleSessionInput,
  features: readonly Feature[],
): Map<string, Array<readonly [string, string]>> {
  const asides = new Map<string, Array<readonly [string, string]>>();
  for (const feature of features) {
    const notes = humanNotesText(input.humanNotes?.[feature.id], 'evaluator');
    const answers = answersText(input.questions, feature.id);
    const sections: Array<readonly [string, string]> = [
      ...(notes ? [[NOTES_TITLE, notes] as const] : []),
      ...(answers ? [[ANSWERS_TITLE, answers] as const] : []),
    ];
    if (sections.length > 0) asides.set(feature.id, sections);
  }
  return asides;
}

/** The evaluator's side of `ask_human`: the tool (if it may ask), what it asked, and the hook that ends the session. */
export interface EvaluatorAsking {
  asked: AskedQuestion;
  tools: ReturnType<typeof askHumanTool>;
  beforeTurn: NonNullable<LoopHooks['beforeTurn']>;
}

/** `ask_human` for an evaluation (never a regression sweep: those features passed, and a sweep judges them as built). */
export function evaluatorAsking(
  input: RoleSessionInput,
  mode: 'evaluate' | 'regression',
  collector: VerdictCollector,
): EvaluatorAsking {
  const asked = new AskedQuestion();
  const tools =
    mode === 'evaluate'
      ? askHumanTool(input, asked, (featureId) =>
          collector.get(featureId)
            ? `You submitted a verdict for ${featureId} already: nothing is left to ask about it.`
            : undefined,
        )
      : [];
  return { asked, tools, beforeTurn: endWhenAsked(asked) };
}
