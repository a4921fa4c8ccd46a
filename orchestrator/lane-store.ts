/**
 * The run store's lane writes: a slot taking a job, and a merge-queue result. Each is one compare-and-set on the
 * run record, like every other change of a run (orchestrator/README.md), so a crash never leaves half a merge
 * recorded and two workers never hand one lane two jobs.
 */
import { z } from 'zod';
import type { RunEvent } from './events.js';
import type { LaneAction } from './lane-planner.js';
import { MAIN_SLOT } from './lane-planner.js';
import { type LaneRecord, laneBranch, MergeOutcome } from './lanes.js';
import { casUpdateRun } from './run-cas.js';
import { type FeatureState, type RunRecord, summarizeFeatures } from './run-state.js';
import type { RunStore } from './run-store.js';

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
      const mergeLane = claim.action.kind === 'merge' ? claim.action.lane : undefined;
      run.lanes = current.lanes.map((lane) => (lane.lane === mergeLane ? { ...lane, seq: claim.seq } : lane));
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
});
export type MergeResult = z.infer<typeof MergeResult>;

/** Merge errors in a row after which the lane's feature is blocked (the merge queue must not loop). */
const MAX_MERGE_ERRORS = 3;

/**
 * Records a merge-queue result in one step: `merged` makes the feature pass on the run branch (and marks the
 * features whose checks replayed green as checked) and frees the lane; `conflict` and `rejected` send the lane
 * back to a generator, counted like a failed evaluation; `error` leaves the merge queued, bounded.
 */
export async function recordMergeResult(
  store: RunStore,
  runId: string,
  seq: number,
  input: MergeResult,
  now: Date,
): Promise<RunRecord> {
  const merge = MergeResult.parse(input);
  const at = now.toISOString();
  let events: RunEvent[] = [];
  const run = await casUpdateRun(
    store.redis,
    store.keys(runId),
    runId,
    { features: true },
    (current, features) => {
      const lane = current.lanes.find((candidate) => candidate.lane === merge.lane);
      const feature = features.find((candidate) => candidate.id === merge.featureId);
      if (!lane || lane.seq !== seq || !feature) return undefined; // a duplicate or stale delivery
      events = [{ type: 'lane.merge', runId, at, seq, ...merge }];
      const counters = { ...current.counters };
      const changed = new Map<string, FeatureState>();
      let lanes = current.lanes;
      const block = (reason: string) => {
        const latest = changed.get(feature.id) ?? feature;
        changed.set(feature.id, { ...latest, mergePending: false, blocked: true, blockedReason: reason });
        events.push({ type: 'feature.blocked', runId, at, seq, featureId: feature.id, reason });
        lanes = lanes.filter((other) => other.lane !== merge.lane);
      };
      if (merge.outcome === 'merged') {
        for (const id of merge.checked) {
          const checked = features.find((candidate) => candidate.id === id);
          if (checked?.passes) changed.set(id, { ...checked, lastCheckedSeq: seq });
        }
        changed.set(feature.id, { ...feature, passes: true, mergePending: false, lastCheckedSeq: seq });
        counters.passesSinceLastRegression += 1;
        counters.lastPassSeq = Math.max(counters.lastPassSeq, seq);
        counters.evaluationsSinceLastPass = 0;
        lanes = lanes.filter((other) => other.lane !== merge.lane);
      } else {
        const setbacks = lane.mergeSetbacks + 1;
        lanes = lanes.map((other) =>
          other.lane === merge.lane
            ? {
                ...other,
                mergeSetbacks: setbacks,
                last: { seq, role: 'merge' as const, outcome: merge.outcome },
              }
            : other,
        );
        if (merge.outcome === 'error') {
          if (setbacks >= MAX_MERGE_ERRORS)
            block(`the merge queue failed ${setbacks} times: ${merge.detail}`);
        } else {
          const attempts = feature.attempts + 1;
          changed.set(feature.id, { ...feature, mergePending: false, attempts, generatorSessions: 0 });
          counters.evaluationsSinceLastPass += 1;
          if (attempts >= current.config.budgets.maxAttemptsPerFeature)
            block(`${attempts} failed attempts; the last merge: ${merge.outcome} (${merge.detail})`);
        }
      }
      const next = features.map((candidate) => changed.get(candidate.id) ?? candidate);
      return {
        run: { ...current, counters, lanes, features: summarizeFeatures(next), updatedAt: at },
        features: [...changed.values()],
      };
    },
  );
  for (const event of events) await store.appendEvent(runId, event);
  return run;
}
