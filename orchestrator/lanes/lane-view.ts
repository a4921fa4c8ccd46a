/**
 * What each lane of a run is doing now, for the views (the dashboard's Lanes card, the `run` progress line,
 * `status`): read from the run record, the lanes' features and their latest sessions. Read-only: it never writes.
 */
import { z } from 'zod';
import { RoleName } from '../../roles/session-result.js';
import type { RunEvent } from '../events.js';
import { FeatureState, type RunRecord, SessionKind, SessionRecord } from '../run/run-state.js';
import type { RunStore } from '../run/run-store.js';
import type { LaneStepView } from './lane-labels.js';
import { awaitsMerge, laneFollowUp } from './lane-scheduler.js';
import { MergeResult } from './lane-store.js';
import { LaneLastStep, type LaneRecord, usesLanes } from './lanes.js';

const Seq = z.number().int().nonnegative();

/** What a lane is doing now: a session in flight, a job queued for a worker, waiting for or in the merge queue. */
export const LaneStep = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('session'),
    role: RoleName,
    sessionKind: SessionKind.nullable(),
    seq: Seq,
    startedAt: z.string(),
    workerId: z.string(),
  }),
  /** Queued for a worker (the role is the one the scheduler gave it). */
  z.object({ kind: z.literal('queued'), role: RoleName, seq: Seq }),
  /** Passed on the lane's branch; the merge queue has not taken it yet. */
  z.object({ kind: z.literal('waiting-merge') }),
  /** The merge queue (the run's own slot, job `seq`) is merging it now. */
  z.object({ kind: z.literal('merging'), seq: Seq }),
  /** Its last job ended; the next advance gives it the next one. */
  z.object({ kind: z.literal('between') }),
]);
export type LaneStep = z.infer<typeof LaneStep> & LaneStepView;

/** One `lane.merge` event as the views show it: the merge result, when and by which job. */
export const LaneMergeView = MergeResult.extend({ at: z.string(), seq: Seq });
export type LaneMergeView = z.infer<typeof LaneMergeView>;

/** One busy lane. */
export const LaneActivity = z.object({
  lane: z.number().int().positive(),
  featureId: z.string(),
  /** The feature's description ('' when the feature is gone). */
  description: z.string(),
  branch: z.string(),
  step: LaneStep,
  mergeSetbacks: z.number().int().nonnegative(),
  last: LaneLastStep.nullable(),
  /** The lane's newest merge result for this feature (from the recent events), if any. */
  lastMerge: LaneMergeView.nullable(),
});
export type LaneActivity = z.infer<typeof LaneActivity>;

/** The lanes of a run: every busy lane, the merge queue, and the newest merge results. */
export const LanesView = z.object({
  /** `config.lanes`. */
  configured: z.number().int().positive(),
  /** Busy lanes in lane order (lanes not listed are free). */
  lanes: z.array(LaneActivity),
  /** The lane the merge queue is merging now, or null. */
  merging: z.number().int().positive().nullable(),
  /** Lanes waiting for the merge queue, in the order it takes them. */
  waiting: z.array(z.number().int().positive()),
  /** Newest first. */
  recentMerges: z.array(LaneMergeView),
});
export type LanesView = z.infer<typeof LanesView>;

/** The view of a `lane.merge` event (undefined for any other event). */
export function toLaneMergeView(event: RunEvent): LaneMergeView | undefined {
  if (event.type !== 'lane.merge') return undefined;
  const { at, seq, lane, featureId, outcome, detail, head, checked } = event;
  return { at, seq, lane, featureId, outcome, detail, head, checked };
}

/**
 * What `lane` does now (pure): in the merge queue (merging: its job is the run slot's current one and has not
 * ended; else waiting), else its latest job: ended (`between`), a session in flight, or queued (the role its
 * planner follow-up gives, the same rule that queued it).
 */
export function laneStep(
  run: Pick<RunRecord, 'mainSeq' | 'config'>,
  lane: LaneRecord,
  feature: FeatureState | undefined,
  session: SessionRecord | undefined,
): LaneStep {
  const ended = lane.last?.seq === lane.seq;
  if (feature?.mergePending || awaitsMerge(lane)) {
    return lane.seq === run.mainSeq && !ended
      ? { kind: 'merging', seq: lane.seq }
      : { kind: 'waiting-merge' };
  }
  if (ended || session?.finishedAt) return { kind: 'between' };
  if (session) {
    const { role, kind, seq, startedAt, workerId } = session;
    return { kind: 'session', role, sessionKind: kind, seq, startedAt, workerId };
  }
  if (!feature) return { kind: 'between' };
  const next = laneFollowUp(lane, feature, run.config.budgets.maxGeneratorSessionsPerAttempt);
  return { kind: 'queued', role: next.kind === 'evaluate' ? 'evaluator' : 'generator', seq: lane.seq };
}

/**
 * The lanes view of `run` (null for a serial run): reads the lanes' features and latest sessions (one round trip
 * each, at most `lanes` entries, never the whole feature list). `recentMerges`: newest first.
 */
export async function loadLanesView(
  store: RunStore,
  run: RunRecord,
  recentMerges: readonly LaneMergeView[] = [],
): Promise<LanesView | null> {
  if (!usesLanes(run.config)) return null;
  const lanes = [...run.lanes].sort((a, b) => a.lane - b.lane);
  const keys = store.keys(run.id);
  const [featureJson, sessionJson] =
    lanes.length === 0
      ? [[], []]
      : await Promise.all([
          store.redis.hmget(keys.features, ...lanes.map((lane) => lane.featureId)),
          store.redis.hmget(keys.sessions, ...lanes.map((lane) => String(lane.seq))),
        ]);
  const activities = lanes.map((lane, index): LaneActivity => {
    const feature = parsed(FeatureState, featureJson[index]);
    const session = parsed(SessionRecord, sessionJson[index]);
    return {
      lane: lane.lane,
      featureId: lane.featureId,
      description: feature?.description ?? '',
      branch: lane.branch,
      step: laneStep(run, lane, feature, session),
      mergeSetbacks: lane.mergeSetbacks,
      last: lane.last,
      lastMerge: null,
    };
  });
  const view = LanesView.parse({
    configured: run.config.lanes,
    lanes: activities,
    merging: activities.find((lane) => lane.step.kind === 'merging')?.lane ?? null,
    waiting: activities.filter((lane) => lane.step.kind === 'waiting-merge').map((lane) => lane.lane),
    recentMerges: [],
  });
  return withMerges(view, recentMerges);
}

/** `view` with the newest merge results (newest first), each lane's own newest as its `lastMerge` (pure). */
export function withMerges(view: LanesView, recentMerges: readonly LaneMergeView[]): LanesView {
  const lanes = view.lanes.map((lane) => ({
    ...lane,
    lastMerge:
      recentMerges.find((merge) => merge.lane === lane.lane && merge.featureId === lane.featureId) ?? null,
  }));
  return { ...view, lanes, recentMerges: [...recentMerges] };
}

function parsed<S extends z.ZodTypeAny>(schema: S, json: string | null | undefined): z.infer<S> | undefined {
  if (!json) return undefined;
  const result = schema.safeParse(JSON.parse(json));
  return result.success ? result.data : undefined;
}
