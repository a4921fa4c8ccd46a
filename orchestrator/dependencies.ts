/**
 * Feature dependencies (`depends_on` in feature_list.json), pure: a feature is started only once what it depends
 * on passes; a feature that waits on a blocked one is blocked too, with the reason naming the dependency.
 */
import type { RunEvent } from './events.js';
import type { FeatureState } from './run/run-state.js';

type DependencyView = Pick<FeatureState, 'id' | 'passes' | 'blocked' | 'blockedReason' | 'depends_on'>;

/** How the reason of a feature blocked by its dependency starts: `waits on F-002, which is blocked: …`. */
export function waitsOnReason(dependency: DependencyView): string {
  return `waits on ${dependency.id}, which is blocked: ${dependency.blockedReason ?? 'no reason given'}`;
}

/** Whether a blocked feature was blocked only because it waits on `dependencyId`. */
export function isWaitingOn(feature: DependencyView, dependencyId: string): boolean {
  return feature.blocked && (feature.blockedReason ?? '').startsWith(`waits on ${dependencyId}, `);
}

/**
 * Each feature's first blocked dependency, direct or through other dependencies (depth first, in `depends_on`
 * order), for every feature that has one. One walk over the whole graph, each feature's answer computed once, so a
 * scheduler call stays linear in the features and their dependencies (a per-feature walk was quadratic on a long
 * chain). A cycle (refused by the list validation) ends the walk where it closes.
 */
export function blockedDependencies<F extends DependencyView>(features: readonly F[]): Map<string, F> {
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  const answers = new Map<string, F | null>();
  const walk = (current: F): F | null => {
    const known = answers.get(current.id);
    if (known !== undefined) return known;
    answers.set(current.id, null); // in progress: a cycle back here finds nothing
    let found: F | null = null;
    for (const id of current.depends_on ?? []) {
      const dependency = byId.get(id);
      if (!dependency) continue;
      found = dependency.blocked ? dependency : walk(dependency);
      if (found) break;
    }
    answers.set(current.id, found);
    return found;
  };
  const result = new Map<string, F>();
  for (const feature of features) {
    const found = walk(feature);
    if (found) result.set(feature.id, found);
  }
  return result;
}

/** Whether every dependency of the feature passes (unknown ids are ignored: the list validation reports them). */
export function dependenciesMet<F extends DependencyView>(feature: F, byId: ReadonlyMap<string, F>): boolean {
  return (feature.depends_on ?? []).every((id) => byId.get(id)?.passes ?? true);
}

/**
 * Blocks, in place, every open feature whose dependency is blocked (to a fixpoint, so chains follow), and
 * returns one `feature.blocked` event for each: the run's state and events say which dependency holds it.
 */
export function blockDependents(
  features: FeatureState[],
  context: { runId: string; at: string; seq: number },
): RunEvent[] {
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  const events: RunEvent[] = [];
  for (let changed = true; changed; ) {
    changed = false;
    for (const feature of features) {
      if (feature.passes || feature.blocked) continue;
      const dependency = (feature.depends_on ?? []).map((id) => byId.get(id)).find((dep) => dep?.blocked);
      if (!dependency) continue;
      const reason = waitsOnReason(dependency);
      Object.assign(feature, { blocked: true, blockedReason: reason });
      events.push({ type: 'feature.blocked', ...context, featureId: feature.id, reason });
      changed = true;
    }
  }
  return events;
}
