/**
 * The run store's lane writes: a slot taking a job, and a merge-queue result. Each is one compare-and-set on the
 * run record, like every other change of a run (orchestrator/README.md), so a crash never leaves half a merge
 * recorded and two workers never hand one lane two jobs.
 */
import { z } from 'zod';
import type { RunEvent } from '../events.js';
import { casUpdateRun } from '../run/run-cas.js';
import { type FeatureState, type RunRecord, summarizeFeatures } from '../run/run-state.js';
import type { RunStore } from '../run/run-store.js';
import type { LaneAction } from './lane-scheduler.js';
import { MAIN_SLOT } from './lane-scheduler.js';
import { type LaneRecord, laneBranch, MergeOutcome } from './lanes.js';

/**
 * Notes that `slot` runs job `seq` for `action`: the run's slot sets `mainSeq` (a merge also marks its lane busy);
 * a lane takes its new feature (`assign`) or its next step. Returns the run as written.
 */
export async function claimSlot(
  store: RunStore,
  runId: string,
  claim: { slot: number; seq: number; action: LaneAction; assign?: boolean },
  now: Date,
): Promise<RunRecord> {
  return casUpdateRun(store.redis, store.keys(runId), runId, {}, (current) => {
    const run: RunRecord = { ...current, updatedAt: now.toISOString() };
    if (claim.slot === MAIN_SLOT) {
      run.mainSeq = claim.seq;
      const merging = new Set(
        claim.action.kind === 'merge' ? claim.action.lanes.map((entry) => entry.lane) : [],
      );
      run.lanes = current.lanes.map((lane) => (merging.has(lane.lane) ? { ...lane, seq: claim.seq } : lane));
      return { run };
    }
    const featureId = 'featureId' in claim.action ? claim.action.featureId : undefined;
    if (claim.assign && featureId) {
      const lane: LaneRecord = {
        lane: claim.slot,
        featureId,
        branch: laneBranch(runId, claim.slot, featureId),
        seq: claim.seq,
        last: null,
        mergeSetbacks: 0,
      };
      run.lanes = [...current.lanes.filter((other) => other.lane !== claim.slot), lane];
    } else {
      run.lanes = current.lanes.map((lane) =>
        lane.lane === claim.slot ? { ...lane, seq: claim.seq } : lane,
      );
    }
    return { run };
  });
}

/** What the merge queue did with one lane. */
export const MergeResult = z.object({
  lane: z.number().int().positive(),
  featureId: z.string(),
  outcome: MergeOutcome,
  detail: z.string(),
  head: z.string().nullable(),
  /** Features whose recorded checks replayed green on the merged head. */
  checked: z.array(z.string()),
  /** App files whose conflict the harness merged by rule (handoff/merge-rules.ts), no model involved. */
  resolved: z.array(z.string()).optional(),
});
export type MergeResult = z.infer<typeof MergeResult>;

/** Merge errors in a row after which the lane's feature is blocked (the merge queue must not loop). */
const MAX_MERGE_ERRORS = 3;
/** Merge-queue setbacks of one lane (conflicts included) after which its feature is blocked. */
const MAX_MERGE_CONFLICTS = 6;

/** What one merge step changes, built up result by result inside one compare-and-set. */
interface MergeChanges {
  counters: RunRecord['counters'];
  lanes: LaneRecord[];
  changed: Map<string, FeatureState>;
  events: RunEvent[];
}

/**
 * Records the results of one merge-queue step (one per lane it took) in one step: `merged` makes the feature pass
 * on the run branch (and marks the features whose checks replayed green as checked) and frees the lane; `rejected`
 * sends the lane back to a generator, counted like a failed evaluation; `conflict` sends it back too, bounded on
 * its own (other lanes merged first: not the feature's failure); `error` leaves the merge queued, bounded. A duplicate or stale delivery (a lane no longer at `seq`) changes nothing.
 */
export async function recordMergeResults(
  store: RunStore,
  runId: string,
  seq: number,
  inputs: MergeResult[],
  now: Date,
): Promise<RunRecord> {
  const merges = inputs.map((input) => MergeResult.parse(input));
  const at = now.toISOString();
  let events: RunEvent[] = [];
  const run = await casUpdateRun(
    store.redis,
    store.keys(runId),
    runId,
    { features: true },
    (current, features) => {
      const changes: MergeChanges = {
        counters: { ...current.counters },
        lanes: current.lanes,
        changed: new Map(),
        events: [],
      };
      const byId = new Map(features.map((feature) => [feature.id, feature]));
      for (const merge of merges) applyMerge(changes, { current, byId, merge, seq, at });
      events = changes.events;
      if (events.length === 0) return undefined;
      const next = features.map((candidate) => changes.changed.get(candidate.id) ?? candidate);
      return {
        run: {
          ...current,
          counters: changes.counters,
          lanes: changes.lanes,
          features: summarizeFeatures(next),
          updatedAt: at,
        },
        features: [...changes.changed.values()],
      };
    },
  );
  for (const event of events) await store.appendEvent(runId, event);
  return run;
}

function applyMerge(
  changes: MergeChanges,
  input: {
    current: RunRecord;
    /** The run's features by id: a merge that replayed every check looks each one up (no scan per check). */
    byId: ReadonlyMap<string, FeatureState>;
    merge: MergeResult;
    seq: number;
    at: string;
  },
): void {
  const { current, byId, merge, seq, at } = input;
  const runId = current.id;
  const lane = changes.lanes.find((candidate) => candidate.lane === merge.lane);
  const stored = byId.get(merge.featureId);
  if (!lane || lane.seq !== seq || !stored) return;
  const feature = changes.changed.get(stored.id) ?? stored;
  changes.events.push({ type: 'lane.merge', runId, at, seq, ...merge });
  const free = () => {
    changes.lanes = changes.lanes.filter((other) => other.lane !== merge.lane);
  };
  const block = (reason: string) => {
    const latest = changes.changed.get(feature.id) ?? feature;
    changes.changed.set(feature.id, { ...latest, mergePending: false, blocked: true, blockedReason: reason });
    changes.events.push({ type: 'feature.blocked', runId, at, seq, featureId: feature.id, reason });
    free();
  };
  if (merge.outcome === 'merged') {
    for (const id of merge.checked) {
      const checked = changes.changed.get(id) ?? byId.get(id);
      if (checked?.passes) changes.changed.set(id, { ...checked, lastCheckedSeq: seq });
    }
    changes.changed.set(feature.id, {
      ...feature,
      passes: true,
      mergePending: false,
      lastCheckedSeq: seq,
      replayOnMerge: [],
    });
    changes.counters.passesSinceLastRegression += 1;
    // Replaying every check on each merge leaves nothing for a full sweep to find.
    const sweep = changes.counters.fullSweep;
    if (current.config.mergeChecks.affected !== 'all')
      changes.counters.fullSweep = { ...sweep, mergesSince: sweep.mergesSince + 1 };
    changes.counters.lastPassSeq = Math.max(changes.counters.lastPassSeq, seq);
    changes.counters.evaluationsSinceLastPass = 0;
    free();
    return;
  }
  const setbacks = lane.mergeSetbacks + 1;
  const last = { seq, role: 'merge' as const, outcome: merge.outcome };
  // A conflict: the lane's next generator resolves it and the lane goes straight back to the queue; a red merge
  // must be evaluated again; an error leaves it as it was.
  const resolvingConflict =
    merge.outcome === 'conflict' || (merge.outcome === 'error' && lane.resolvingConflict === true);
  changes.lanes = changes.lanes.map((other) =>
    other.lane === merge.lane ? { ...other, mergeSetbacks: setbacks, last, resolvingConflict } : other,
  );
  if (merge.outcome === 'error') {
    if (setbacks >= MAX_MERGE_ERRORS) block(`the merge queue failed ${setbacks} times: ${merge.detail}`);
    return;
  }
  if (merge.outcome === 'conflict') {
    // Not the feature's failure (other lanes merged first): bounded on its own, not as a failed attempt.
    changes.changed.set(feature.id, { ...feature, mergePending: false, generatorSessions: 0 });
    if (setbacks >= MAX_MERGE_CONFLICTS)
      block(`its lane conflicted with the run branch ${setbacks} times: ${merge.detail}`);
    return;
  }
  const attempts = feature.attempts + 1;
  changes.changed.set(feature.id, { ...feature, mergePending: false, attempts, generatorSessions: 0 });
  changes.counters.evaluationsSinceLastPass += 1;
  if (attempts >= current.config.budgets.maxAttemptsPerFeature)
    block(`${attempts} failed attempts; the last merge: ${merge.outcome} (${merge.detail})`);
}
