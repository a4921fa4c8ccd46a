import { NightshiftError } from '../core/errors.js';
import type { FeatureState, RunRecord } from '../orchestrator/run/index.js';
import { STATUS_TRANSITIONS } from '../orchestrator/run/index.js';
import type { RetryView } from './api-types.js';
import { featureState } from './feature-state.js';

/** A retry that would change nothing or could never run (HTTP 409; the UI shows the same reason on the button). */
export class RetryRefusedError extends NightshiftError {
  constructor(runId: string, featureId: string, reason: string) {
    super('FEATURE_RETRY_REFUSED', `Feature ${featureId} of run ${runId} cannot be retried: ${reason}`, {
      hint: 'Retry is for blocked or failing features of a run that can still start sessions.',
      exitCode: 2,
    });
  }
}

/**
 * Why retrying `feature` is pointless, or null when it is not. A cancelled run never starts another session, and a
 * done run only when a person adds a feature (its only way out), never for a retry; a passing feature has nothing
 * to retry; an untested one is picked anyway.
 */
export function retryRefusal(run: RunRecord, feature: FeatureState): string | null {
  if (run.status === 'done' || STATUS_TRANSITIONS[run.status].length === 0)
    return `the run is ${run.status} and starts no more sessions`;
  const state = featureState(feature);
  if (state === 'pass') return 'it passes';
  if (state === 'untested') return 'it has not been evaluated yet; the run will get to it';
  return null;
}

/** The retry control's state for the feature panel. */
export function retryView(run: RunRecord, feature: FeatureState): RetryView {
  const reason = retryRefusal(run, feature);
  return { allowed: reason === null, reason };
}
