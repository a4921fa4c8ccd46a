/**
 * Two stop conditions that keep a run from turning for ever without doing anything (issue 24): the same
 * harness error on the same step again and again (`harness-error`), and sessions that keep starting while no
 * commit lands and no feature passes for `noProgressMinutes` (`no-progress`). Pure: state and clock in,
 * decision out; the run store and the worker keep the counters they read.
 */
import type { StopCondition } from './budgets.js';
import type { RunCounters, RunRecord } from './run/run-state.js';

/** Sessions started since the last progress before the no-progress pause may apply: one long session is not a loop. */
export const NO_PROGRESS_MIN_SESSIONS = 2;

/** What to do after the pause, named in its detail (the CLI and dashboard show it). */
export const HARNESS_ERROR_HINT =
  'the harness itself failed, not the model: fix the cause (see the worker log), then `nightshift resume RUN`';
/** What to do after a no-progress pause. */
export const NO_PROGRESS_HINT =
  'look at the last sessions (`nightshift logs RUN`) and the worker log, fix the cause, then `nightshift resume RUN`';

/** A message with its numbers blanked: the same error about another temp dir, port or session is the same error. */
function errorSignature(message: string): string {
  return message.replace(/[0-9a-f]*\d[0-9a-f]*/gi, '#');
}

/** The counters after a harness error on `step`: one more when it repeats the last one, else the first. */
export function countHarnessError(counters: RunCounters, step: string, message: string): RunCounters {
  const last = counters.lastHarnessError;
  const same =
    last !== null && last.step === step && errorSignature(last.message) === errorSignature(message);
  return {
    ...counters,
    repeatedHarnessErrors: same ? counters.repeatedHarnessErrors + 1 : 1,
    lastHarnessError: { step, message },
  };
}

/** `harness-error` once the same error broke the same step `maxRepeatedHarnessErrors` times in a row; else null. */
export function harnessErrorStop(run: Pick<RunRecord, 'counters' | 'config'>): StopCondition | null {
  const { repeatedHarnessErrors, lastHarnessError } = run.counters;
  if (!lastHarnessError || repeatedHarnessErrors < run.config.budgets.maxRepeatedHarnessErrors) return null;
  return {
    reason: 'harness-error',
    detail: `${lastHarnessError.step} failed ${repeatedHarnessErrors} times in a row with: ${lastHarnessError.message} — ${HARNESS_ERROR_HINT}`,
  };
}

/**
 * `no-progress` when the run is building, `noProgressMinutes` (> 0) have passed since its last progress (or its
 * start) and at least {@link NO_PROGRESS_MIN_SESSIONS} sessions were started since; else null.
 */
export function noProgressStop(
  run: Pick<RunRecord, 'counters' | 'config' | 'status' | 'seq' | 'startedAt'>,
  now: Date,
): StopCondition | null {
  const minutes = run.config.budgets.noProgressMinutes;
  if (minutes <= 0 || run.status !== 'building') return null;
  const since = run.counters.progressAt ?? run.startedAt;
  if (since === null) return null;
  const elapsedMs = now.getTime() - Date.parse(since);
  const started = run.seq - run.counters.progressSeq;
  if (elapsedMs < minutes * 60_000 || started < NO_PROGRESS_MIN_SESSIONS) return null;
  return {
    reason: 'no-progress',
    detail: `${started} sessions started in ${Math.round(elapsedMs / 60_000)} minutes without a commit or a new pass — ${NO_PROGRESS_HINT}`,
  };
}

/** The counters after progress at `at` (a commit landed, a feature passed, the run started or resumed). */
export function withProgress(counters: RunCounters, at: string, seq: number): RunCounters {
  return { ...counters, progressAt: at, progressSeq: seq };
}

/**
 * The counters of a run leaving `paused` (resumed): its stop condition starts over — `stuck` forgets its
 * evaluations, `harness-error` its errors — and the no-progress clock restarts now.
 */
export function countersOnResume(
  counters: RunCounters,
  pausedReason: RunRecord['pausedReason'],
  at: string,
  seq: number,
): RunCounters {
  const next = withProgress(counters, at, seq);
  if (pausedReason === 'stuck') next.evaluationsSinceLastPass = 0;
  if (pausedReason === 'harness-error')
    Object.assign(next, { repeatedHarnessErrors: 0, lastHarnessError: null });
  return next;
}
