// Pure and dependency-free: the server (grid payload, retry rule) and the web UI (cells, legend, header) share it,
// so a feature is called the same thing everywhere.

/** The four states a feature is shown in. */
export type FeatureStateName = 'pass' | 'fail' | 'blocked' | 'untested';

/** The states in display order (legend, counts). */
export const FEATURE_STATES: readonly FeatureStateName[] = ['pass', 'fail', 'blocked', 'untested'];

/** What a feature's state is computed from (a FeatureState or the API's FeatureView). */
export interface FeatureStateInput {
  passes: boolean;
  blocked: boolean;
  attempts: number;
  lastVerdict: 'pass' | 'fail' | 'blocked' | null;
}

/** pass, blocked (the planner skips it), untested (never evaluated), or fail (evaluated, not passing). */
export function featureState(feature: FeatureStateInput): FeatureStateName {
  if (feature.passes) return 'pass';
  if (feature.blocked) return 'blocked';
  return feature.lastVerdict === null && feature.attempts === 0 ? 'untested' : 'fail';
}
