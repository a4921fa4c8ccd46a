/**
 * Questions sessions ask a person (`ask_human`), kept on the run record: asked within the cap, answered by a
 * person (CLI, dashboard, HTTP API) or, past their timeout, by the harness ("decide yourself"). Each change is one
 * compare-and-set on the run, a `question.asked` / `question.answered` event and a webhook notification.
 */
import { InputError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { type AnsweredBy, DECIDE_YOURSELF, openQuestions, type Question } from '../handoff/questions.js';
import type { RunEvent } from './events.js';
import type { Orchestrator } from './orchestrator.js';
import { casUpdateRun } from './run/run-cas.js';
import type { RunRecord } from './run/run-state.js';

const log = moduleLogger('orchestrator/questions');

/** The orchestrator parts questions use: Redis, the store, the clock and the notifier. */
export type QuestionsDeps = Pick<Orchestrator, 'redis' | 'store' | 'now' | 'onSessionEvents'>;

/** What a session asks. */
export interface AskRequest {
  featureId: string;
  role: Question['role'];
  seq: number;
  question: string;
  options: string[];
}

/** The question as recorded, or why none was (the cap): the session decides itself. */
export type AskOutcome = { kind: 'asked'; question: Question } | { kind: 'decide'; reason: string };

/** A question id that the run does not have. */
export class QuestionNotFoundError extends InputError {
  constructor(runId: string, questionId: string) {
    super('QUESTION_NOT_FOUND', `Run ${runId} has no question ${questionId}.`, {
      hint: `List its questions with \`nightshift questions ${runId}\`.`,
    });
  }
}

/** An answer to a question that has one already (answers are never overwritten). */
export class QuestionAnsweredError extends InputError {
  constructor(runId: string, question: Question) {
    super(
      'QUESTION_ALREADY_ANSWERED',
      `Question ${question.id} of run ${runId} was answered already (${question.answeredBy}): "${question.answer}".`,
      { hint: 'Leave the feature a note instead, or ask nothing: the next session has this answer.' },
    );
  }
}

/** Records a question, unless the run has `questions.maxOpen` open ones already; appends `question.asked`. */
export async function askQuestion(
  orchestrator: QuestionsDeps,
  runId: string,
  request: AskRequest,
): Promise<AskOutcome> {
  let outcome: AskOutcome = { kind: 'decide', reason: '' };
  const at = orchestrator.now().toISOString();
  const run = await casUpdateRun(orchestrator.redis, orchestrator.store.keys(runId), runId, {}, (current) => {
    const { maxOpen } = current.config.questions;
    const open = openQuestions(current.questions).length;
    if (open >= maxOpen) {
      outcome = {
        kind: 'decide',
        reason: `No person can be asked now (${open} of at most ${maxOpen} questions are open). ${DECIDE_YOURSELF}`,
      };
      return undefined;
    }
    const question: Question = {
      id: `Q-${current.questions.length + 1}`,
      ...request,
      askedAt: at,
      answer: null,
      answeredAt: null,
      answeredBy: null,
    };
    outcome = { kind: 'asked', question };
    return { run: { ...current, questions: [...current.questions, question], updatedAt: at } };
  });
  const asked = outcome as AskOutcome;
  if (asked.kind === 'asked') {
    await tell(orchestrator, run, [{ type: 'question.asked', runId, at, question: asked.question }]);
  }
  return asked;
}

/** Answers an open question (a person's answer, trimmed); throws QuestionNotFoundError, QuestionAnsweredError. */
export async function answerQuestion(
  orchestrator: QuestionsDeps,
  runId: string,
  questionId: string,
  answer: string,
  by: AnsweredBy,
): Promise<{ run: RunRecord; question: Question }> {
  const at = orchestrator.now().toISOString();
  let answered: Question | undefined;
  const run = await casUpdateRun(orchestrator.redis, orchestrator.store.keys(runId), runId, {}, (current) => {
    const question = current.questions.find((candidate) => candidate.id === questionId);
    if (!question) throw new QuestionNotFoundError(runId, questionId);
    if (question.answer !== null) throw new QuestionAnsweredError(runId, question);
    answered = { ...question, answer: answer.trim(), answeredAt: at, answeredBy: by };
    const questions = current.questions.map((candidate) =>
      candidate.id === questionId ? (answered as Question) : candidate,
    );
    return { run: { ...current, questions, updatedAt: at } };
  });
  const question = answered as Question;
  await tell(orchestrator, run, [{ type: 'question.answered', runId, at, question }]);
  return { run, question };
}

/** The open questions of a run that are past `questions.answerTimeoutMinutes` at `now` (none when it is 0). */
export function expiredQuestions(run: RunRecord, now: Date): Question[] {
  const minutes = run.config.questions.answerTimeoutMinutes;
  if (minutes <= 0) return [];
  return openQuestions(run.questions).filter(
    (question) => now.getTime() - Date.parse(question.askedAt) >= minutes * 60_000,
  );
}

/** Answers every question past its timeout with "decide yourself…"; returns the run as it is after. */
export async function expireQuestions(orchestrator: QuestionsDeps, run: RunRecord): Promise<RunRecord> {
  let current = run;
  for (const question of expiredQuestions(run, orchestrator.now())) {
    try {
      current = (await answerQuestion(orchestrator, run.id, question.id, DECIDE_YOURSELF, 'timeout')).run;
    } catch (error) {
      // A person answered it meanwhile: their answer stands.
      if (!(error instanceof QuestionAnsweredError)) throw error;
    }
  }
  return current;
}

/** Appends the events and hands them to the notifier (webhooks); a failed notification never fails the change. */
async function tell(orchestrator: QuestionsDeps, run: RunRecord, events: RunEvent[]): Promise<void> {
  for (const event of events) await orchestrator.store.appendEvent(run.id, event);
  try {
    orchestrator.onSessionEvents?.(run, events);
  } catch (error) {
    log.warn({ err: error, runId: run.id }, 'question notification failed');
  }
}
