/**
 * A session that ends with an exception instead of a result failed because of the harness (a workspace file it
 * cannot read, a git command that fails), not because of the model. Each one is counted on the run record
 * against its step; the scheduler pauses the run `harness-error` once the same error repeats on the same step
 * (orchestrator/progress-watch.ts), instead of starting the same failing session for ever.
 */
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { countHarnessError } from './progress-watch.js';
import { casUpdateRun } from './run/run-cas.js';
import type { RunRecord } from './run/run-state.js';
import type { RunStore } from './run/run-store.js';

const log = moduleLogger('orchestrator/harness-errors');

/** Longest message kept on the run record (the worker log has the whole error). */
const MAX_MESSAGE = 500;

/** One line saying what went wrong and, for nightshift's own errors, what to do about it. */
export function harnessErrorMessage(error: unknown): string {
  const text =
    error instanceof NightshiftError
      ? `${error.name}: ${error.message}${error.hint ? ` (${error.hint})` : ''}`
      : error instanceof Error
        ? `${error.name}: ${error.message}`
        : String(error);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}

/** What a full disk says through Node, git and the shell. */
const DISK_FULL = /ENOSPC|EDQUOT|no space left on device|out of diskspace|disk quota exceeded/i;

/**
 * True for an error of the machine rather than of the step: a full disk. It is not counted toward a
 * `harness-error` pause, since the same session succeeds once space is freed (the chaos suite fills the disk for a
 * minute); a disk that stays full ends in a `no-progress` pause instead.
 */
export function isMachineCondition(error: unknown): boolean {
  return DISK_FULL.test(
    error instanceof Error ? `${error.message} ${(error as { code?: string }).code ?? ''}` : String(error),
  );
}

/** The step a session job is for, as the pause detail names it: `evaluate F-001`, `initialize`. */
export function stepName(kind: string, featureIds: readonly string[]): string {
  return featureIds.length > 0 ? `${kind} ${featureIds.join(',')}` : kind;
}

/** Counts a harness error of `step` on the run record (atomically) and returns the run after it. */
export async function recordHarnessError(
  store: RunStore,
  runId: string,
  step: string,
  error: unknown,
): Promise<RunRecord> {
  const message = harnessErrorMessage(error);
  const run = await casUpdateRun(store.redis, store.keys(runId), runId, {}, (current) => ({
    run: { ...current, counters: countHarnessError(current.counters, step, message) },
  }));
  log.error(
    { err: error, runId, step, repeated: run.counters.repeatedHarnessErrors },
    'a session ended with a harness error',
  );
  return run;
}
