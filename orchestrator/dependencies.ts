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

/** The first blocked dependency of a feature, direct or through other dependencies; undefined when none. */
export function blockedDependency<F extends DependencyView>(
  feature: F,
  byId: ReadonlyMap<string, F>,
): F | undefined {
  const seen = new Set<string>();
  const walk = (current: F): F | undefined => {
    for (const id of current.depends_on ?? []) {
      const dependency = byId.get(id);
      if (!dependency || seen.has(id)) continue;
      seen.add(id);
      if (dependency.blocked) return dependency;
      const deeper = walk(dependency);
      if (deeper) return deeper;
    }
    return undefined;
  };
  return walk(feature);
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
