/**
 * Parallel lanes (config `lanes` > 1): up to N features of one run worked on at once (and up to N more waiting for
 * the merge queue), each on its own git branch made from the run branch, worked by generator and evaluator sessions
 * that may run on different workers, and merged into the run branch one train at a time by the merge queue (the
 * run's own slot). See docs/lanes.md.
 */
import { z } from 'zod';
import { RoleName } from '../../roles/session-result.js';

/** Lanes a run may have at most (each needs a worker slot, an app and a browser context while it evaluates). */
export const MAX_LANES = 8;

/** How a merge-queue step ended for its lane. */
export const MergeOutcome = z.enum([
  /** Merged, and every recorded check replayed green on the merged head: the feature passes on the run branch. */
  'merged',
  /** The lane's branch conflicts with the run branch: a generator resolves the conflict on the lane. */
  'conflict',
  /** Merged cleanly, but a recorded check went red on the merged head: the merge was undone. */
  'rejected',
  /** The merge could not be tried (git or app trouble): the merge queue tries again. */
  'error',
]);
export type MergeOutcome = z.infer<typeof MergeOutcome>;

/** What the scheduler needs of a lane's last counted step. */
export const LaneLastStep = z.object({
  seq: z.number().int().nonnegative(),
  role: z.union([RoleName, z.literal('merge')]),
  /** A session outcome, or a merge outcome for `role: merge`. */
  outcome: z.string(),
});
export type LaneLastStep = z.infer<typeof LaneLastStep>;

/** One lane of a run, as stored in the run record. */
export const LaneRecord = z.object({
  /** 1…2×`lanes` (a lane whose feature waits to merge frees its place: lanes above N take the next features). */
  lane: z.number().int().positive(),
  featureId: z.string().min(1),
  /** The lane's branch on the workspace (or the remote): `nightshift/<run>/lane-<n>-<feature>`. */
  branch: z.string().min(1),
  /** Seq of the lane's latest job (a session, or its merge): the lane is busy while that job is in flight. */
  seq: z.number().int().nonnegative(),
  last: LaneLastStep.nullable(),
  /** Merge attempts that ended in a conflict or a red merged head (bounded like failed evaluations). */
  mergeSetbacks: z.number().int().nonnegative().default(0),
  /**
   * The merge queue sent the lane back with a conflict no rule fits: once its generator has resolved it, the lane
   * goes straight back to the merge queue (first in the train); the replay of the recorded checks verifies the
   * resolution, and only a red replay costs an LLM evaluation again (issue 29).
   */
  resolvingConflict: z.boolean().optional(),
});
export type LaneRecord = z.infer<typeof LaneRecord>;

/** Lanes mode's full sweeps (workers/full-sweep.ts): merges since the last, when it ran, the head it found green. */
export const FullSweepMark = z.object({
  mergesSince: z.number().int().nonnegative(),
  at: z.string().nullable(),
  /** The run branch's head at the last full sweep that found every check green: where a bisect starts. */
  greenHead: z.string().nullable(),
  /** How long the last full sweep took (null before the first, or when not recorded): it spaces the next one. */
  durationMs: z.number().nonnegative().nullable().default(null),
});
export type FullSweepMark = z.infer<typeof FullSweepMark>;

/** The branch of lane `lane` working on `featureId`. */
export function laneBranch(runId: string, lane: number, featureId: string): string {
  const safe = featureId.replace(/[^A-Za-z0-9._-]/g, '-');
  return `nightshift/${runId}/lane-${lane}-${safe}`;
}

/** Whether a run works in lanes (more than one). */
export function usesLanes(config: { lanes: number }): boolean {
  return config.lanes > 1;
}
