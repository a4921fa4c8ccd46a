import { InputError, NightshiftError } from '../../core/errors.js';

/** A run id that is not in the store. */
export class RunNotFoundError extends InputError {
  constructor(runId: string) {
    super('RUN_NOT_FOUND', `Run ${runId} does not exist.`, { hint: 'List runs with `nightshift runs`.' });
  }
}

/** A run that was there and is gone from Redis while it was followed (Redis restarted without its data, keys removed). */
export class RunVanishedError extends NightshiftError {
  constructor(runId: string, cause: unknown) {
    super(
      'RUN_VANISHED',
      `Run ${runId} disappeared from Redis while it was running (its record is no longer there).`,
      {
        hint: 'Was Redis restarted without its data (keep it with `--appendonly yes`: docs/operations.md), flushed, or were its keys removed? The workspace keeps its commits: the same `nightshift run … --workspace DIR` starts a new run that adopts its feature list.',
        cause,
      },
    );
  }
}

/** A feature id that is not in the run's feature list. */
export class FeatureNotFoundError extends InputError {
  constructor(runId: string, featureId: string) {
    super('FEATURE_NOT_FOUND', `Run ${runId} has no feature ${featureId}.`, {
      hint: 'See the feature ids with `nightshift status RUN --json` or the dashboard.',
    });
  }
}

/** Too many concurrent writers kept invalidating each other's update of one run. */
export class RunConflictError extends NightshiftError {
  constructor(runId: string, attempts: number) {
    super('RUN_CONFLICT', `Gave up updating run ${runId} after ${attempts} conflicting concurrent writes.`, {
      hint: 'Retry; if it persists, something writes the run in a tight loop.',
    });
  }
}
