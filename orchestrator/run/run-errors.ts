import { InputError, NightshiftError } from '../../core/errors.js';

/** A run id that is not in the store. */
export class RunNotFoundError extends InputError {
  constructor(runId: string) {
    super('RUN_NOT_FOUND', `Run ${runId} does not exist.`, { hint: 'List runs with `nightshift runs`.' });
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
