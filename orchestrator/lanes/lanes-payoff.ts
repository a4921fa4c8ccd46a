/**
 * Whether `--lanes N` pays for itself on a feature list, from the lanes model of docs/lanes.md (pure). Lanes overlap
 * model time, but the dependency graph bounds how many features can be in flight (its width) and how many must go
 * one after another (its longest chain), every merge takes the serial merge queue's time, and features in flight
 * together conflict, each conflict costing another generator and evaluator round.
 */
import { z } from 'zod';
import type { FeatureState } from '../run/run-state.js';

/** The merge queue's time per merged feature, as a share of one feature's serial time (bench: 0.13–0.15). */
export const MERGE_SHARE = 0.14;
/**
 * Chance that a merge conflicts, per other lane in flight, times the number of features: 2/n per lane. An app of n
 * features has few places they all touch; fitted so that the 8-feature example expects 4 conflicts at 3 lanes
 * (5 were seen).
 */
export const CONFLICT_FACTOR = 2;
/** Below this expected speed-up, lanes do not pay for what they add (conflicts, merged-head replays). */
export const WORTHWHILE_SPEEDUP = 1.25;

/** The lanes estimate of one feature list: what is printed once when it says lanes will not pay. */
export const LanesEstimate = z.object({
  lanes: z.number().int().positive(),
  /** Features still to build (not passing, not blocked). */
  features: z.number().int().nonnegative(),
  /** Most of them that can ever be in flight at once (the dependency graph's width). */
  width: z.number().int().nonnegative(),
  /** The longest depends_on chain among them, first to last. */
  chain: z.array(z.string()),
  /** Expected conflicts. */
  conflicts: z.number().nonnegative(),
  /** Expected wall time and cost, as multiples of one lane's (1 = the same). */
  timeFactor: z.number().positive(),
  costFactor: z.number().positive(),
  /** False when the lanes are expected to gain too little for what they add. */
  paysOff: z.boolean(),
});
export type LanesEstimate = z.infer<typeof LanesEstimate>;

type Node = Pick<FeatureState, 'id' | 'depends_on'>;

/** Every feature each one must wait for, directly or not (ids of the list only; cycles are refused elsewhere). */
function prerequisites(features: readonly Node[]): Map<string, Set<string>> {
  const ids = new Set(features.map((feature) => feature.id));
  const direct = new Map(features.map((f) => [f.id, (f.depends_on ?? []).filter((id) => ids.has(id))]));
  const all = new Map<string, Set<string>>();
  const open = new Set<string>();
  const visit = (id: string): Set<string> => {
    const known = all.get(id);
    if (known) return known;
    open.add(id);
    const found = new Set<string>();
    for (const dependency of direct.get(id) ?? []) {
      if (open.has(dependency)) continue; // a cycle: refused elsewhere
      found.add(dependency);
      for (const deeper of visit(dependency)) found.add(deeper);
    }
    open.delete(id);
    all.set(id, found);
    return found;
  };
  for (const id of ids) visit(id);
  return all;
}

/**
 * The longest chain of features each waiting on the one before (at least one feature when there are any; of equal
 * chains, the one ending first in list order). Each feature's longest chain is found once and kept as a link to its
 * predecessor, so a long chain costs linear time, not a copy of the chain per feature.
 */
export function longestChain(features: readonly Node[]): string[] {
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  const length = new Map<string, number>();
  const previous = new Map<string, string>();
  const measure = (feature: Node): number => {
    const known = length.get(feature.id);
    if (known !== undefined) return known;
    length.set(feature.id, 1); // in progress: a cycle (refused elsewhere) adds nothing
    let best = 0;
    for (const id of feature.depends_on ?? []) {
      const dependency = byId.get(id);
      const candidate = dependency ? measure(dependency) : 0;
      if (candidate > best) {
        best = candidate;
        previous.set(feature.id, id);
      }
    }
    length.set(feature.id, best + 1);
    return best + 1;
  };
  let end: Node | undefined;
  for (const feature of features) if (!end || measure(feature) > measure(end)) end = feature;
  const chain: string[] = [];
  for (let id = end?.id; id !== undefined; id = previous.get(id)) chain.push(id);
  return chain.reverse();
}

/**
 * The most features that can be in flight at once: the largest set of which none waits on another (Dilworth: the
 * count minus a maximum matching of "must come before"). The matching looks only at the features that wait on
 * each one, not at the whole list.
 */
export function dependencyWidth(features: readonly Node[]): number {
  const before = prerequisites(features);
  const ids = features.map((feature) => feature.id);
  const waitingOn = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const later of ids) for (const id of before.get(later) ?? []) waitingOn.get(id)?.push(later);
  const matchedBy = new Map<string, string>();
  const augment = (id: string, seen: Set<string>): boolean => {
    for (const later of waitingOn.get(id) ?? []) {
      if (seen.has(later)) continue;
      seen.add(later);
      const holder = matchedBy.get(later);
      if (holder === undefined || augment(holder, seen)) {
        matchedBy.set(later, id);
        return true;
      }
    }
    return false;
  };
  let matching = 0;
  for (const id of ids) if (augment(id, new Set())) matching++;
  return ids.length - matching;
}

/** The lanes model (docs/lanes.md, "What lanes cost") on the features still to build. */
export function estimateLanes(features: readonly FeatureState[], lanes: number): LanesEstimate {
  const open = features.filter((feature) => !feature.passes && !feature.blocked);
  const n = open.length;
  const width = dependencyWidth(open);
  const chain = longestChain(open);
  const busy = Math.max(1, Math.min(lanes, width));
  const conflicts = n === 0 ? 0 : n * Math.min(1, (CONFLICT_FACTOR * (busy - 1)) / n);
  // In units of one feature's serial time: the work spread over the busy lanes, never faster than the chain (each
  // link merged before the next starts), the serial merge queue, and a round plus a merge per conflict.
  const time =
    Math.max(n / busy + n * MERGE_SHARE, chain.length * (1 + MERGE_SHARE)) + conflicts * (1 + MERGE_SHARE);
  const timeFactor = n === 0 ? 1 : time / n;
  const costFactor = n === 0 ? 1 : (n + conflicts) / n;
  return {
    lanes,
    features: n,
    width,
    chain,
    conflicts: Math.round(conflicts * 10) / 10,
    timeFactor: Math.round(timeFactor * 100) / 100,
    costFactor: Math.round(costFactor * 100) / 100,
    paysOff: 1 / timeFactor >= WORTHWHILE_SPEEDUP && width >= lanes,
  };
}

/** The `lanes.estimate` event of a run in lanes whose feature list the lanes will not pay for; none otherwise. */
export function lanesEstimateEvent(
  run: { id: string; config: { lanes: number } },
  features: readonly FeatureState[],
  at: string,
): { type: 'lanes.estimate'; runId: string; at: string; estimate: LanesEstimate } | undefined {
  if (run.config.lanes <= 1) return undefined;
  const estimate = estimateLanes(features, run.config.lanes);
  return estimate.paysOff || estimate.features === 0
    ? undefined
    : { type: 'lanes.estimate', runId: run.id, at, estimate };
}

/** `1.6×`: a factor for a person. */
function factor(value: number): string {
  return `${value.toFixed(1)}×`;
}

/** The notice printed once when lanes will not pay, with the model's expectation and the example's measurement. */
export function formatLanesNotice(estimate: LanesEstimate): string {
  const { lanes, features, width, chain } = estimate;
  const why = [
    `${features} feature(s) to build`,
    width < lanes ? `at most ${width} can ever be in flight at once` : '',
    chain.length > 1
      ? `a depends_on chain of ${chain.length} goes one after another (${chain.join(' → ')})`
      : '',
  ].filter(Boolean);
  const speed =
    estimate.timeFactor >= 1
      ? `about ${factor(estimate.timeFactor)} the time of one lane (no faster)`
      : `about ${factor(1 / estimate.timeFactor)} faster than one lane`;
  return (
    `--lanes ${lanes} is unlikely to pay for itself here: ${why.join('; ')}. ` +
    `Expected (the lanes model, docs/lanes.md): ${speed} at ${factor(estimate.costFactor)} the cost, ` +
    `with about ${Math.round(estimate.conflicts)} merge conflict(s). Measured on the 8-feature example: 3 lanes took ` +
    '2 m 51 s and $0.83, one lane 1 m 30 s and $0.56. The run goes on as asked; --lanes 1 (the default) builds one feature at a time.'
  );
}
