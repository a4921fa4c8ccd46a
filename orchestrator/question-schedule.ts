/**
 * What open questions mean to the scheduler (pure): a feature with an open question waits for its answer, the
 * rest of the run goes on; a run with nothing but waiting features left waits, and pauses after
 * `questions.pauseAfterHours` with the questions as its reason.
 */
import { openQuestions } from '../handoff/questions.js';
import type { FeatureState, RunRecord } from './run/run-state.js';

/** The ids of the features waiting for an answer (an open question on them). */
export function waitingFeatureIds(run: Pick<RunRecord, 'questions'>): Set<string> {
  return new Set(openQuestions(run.questions).map((question) => question.featureId));
}

/**
 * Whether a feature's next session is an evaluation because an evaluator asked about it: its question is answered
 * and no verdict came since (the evaluation was not judged; a generator would rebuild what nobody found wrong).
 */
export function evaluatesAfterAnswer(
  run: Pick<RunRecord, 'questions'>,
  feature: Pick<FeatureState, 'id' | 'lastVerdictSeq'>,
): boolean {
  return run.questions.some(
    (question) =>
      question.featureId === feature.id &&
      question.role === 'evaluator' &&
      question.answer !== null &&
      question.seq > feature.lastVerdictSeq,
  );
}

/** What a run whose only open work waits for answers does: wait, or pause once it waited long enough. */
export type WaitingAction =
  | { kind: 'wait'; reason: string }
  | { kind: 'pause'; reason: 'questions'; detail: string };

/** The open questions as one line: `Q-1 (F-002): Which currency? ; Q-2 …` (each question cut to 200 characters). */
export function openQuestionsLine(run: Pick<RunRecord, 'questions'>): string {
  return openQuestions(run.questions)
    .map((question) => `${question.id} (${question.featureId}): ${cut(question.question, 200)}`)
    .join('; ');
}

/**
 * The wait or pause of a run with nothing to do but wait for answers; undefined when no question is open. The run
 * pauses `pauseAfterHours` after the latest open question was asked.
 */
export function waitForAnswers(run: RunRecord, now: Date): WaitingAction | undefined {
  const open = openQuestions(run.questions);
  if (open.length === 0) return undefined;
  const line = openQuestionsLine(run);
  const latest = Math.max(...open.map((question) => Date.parse(question.askedAt)));
  const waitedMs = now.getTime() - latest;
  if (waitedMs >= run.config.questions.pauseAfterHours * 3_600_000) {
    return {
      kind: 'pause',
      reason: 'questions',
      detail: `waited ${run.config.questions.pauseAfterHours} h for answers: ${line}`,
    };
  }
  return { kind: 'wait', reason: `waiting for an answer: ${line}` };
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
