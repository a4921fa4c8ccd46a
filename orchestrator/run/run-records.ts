import { z } from 'zod';
import { RunName } from '../../handoff/spec-title.js';
import { HumanNote } from '../../roles/human-notes.js';
import { RunConfig } from '../config.js';
import type { RunEvent } from '../events.js';
import { countersOnResume } from '../progress-watch.js';
import {
  emptyCounters,
  FeatureState,
  FINISHED_STATUSES,
  newRunId,
  type PausedReason,
  RunRecord,
  type RunStatus,
  runName,
  summarizeFeatures,
  Workspace,
} from './run-state.js';
import { canTransition, RunTransitionError } from './transitions.js';

/** What createRun needs. */
export const NewRun = z.object({
  /** Default: a fresh `newRunId()`. */
  id: z.string().optional(),
  /** What people call the run (`--name`, else the spec's title); default: the spec's file name. */
  name: RunName.optional(),
  spec: z.object({ path: z.string().min(1), name: z.string().min(1) }),
  workspace: Workspace,
  config: RunConfig,
});
export type NewRun = z.input<typeof NewRun>;

/**
 * Harness fields of a feature a user or the orchestrator may set directly (e.g. the dashboard's retry). No field
 * has a default: zod 4 fills a default even in a `.partial()` field, so a patch that left `humanNotes` out would
 * come back with `humanNotes: []` and wipe the feature's notes (every retry and unblock did).
 */
export const FeaturePatch = FeatureState.pick({
  passes: true,
  attempts: true,
  blockedEvaluations: true,
  regressions: true,
  generatorSessions: true,
  blocked: true,
  blockedReason: true,
})
  .extend({ humanNotes: z.array(HumanNote) })
  .partial();
export type FeaturePatch = z.infer<typeof FeaturePatch>;

/** The record of a run just created (status `created`, nothing counted yet). */
export function newRunRecord(parsed: z.output<typeof NewRun>, now: Date): RunRecord {
  const at = now.toISOString();
  return RunRecord.parse({
    id: parsed.id ?? newRunId(now),
    rev: 0,
    name: parsed.name ?? runName({ name: null, spec: parsed.spec }),
    spec: parsed.spec,
    workspace: parsed.workspace,
    config: parsed.config,
    status: 'created',
    pausedReason: null,
    detail: null,
    createdAt: at,
    startedAt: null,
    updatedAt: at,
    finishedAt: null,
    seq: 0,
    counters: emptyCounters(),
    features: summarizeFeatures([]),
    lastSession: null,
    lanes: [],
    mainSeq: 0,
  });
}

/**
 * The run after a status change and its `run.status` event, or undefined when nothing changes; throws
 * RunTransitionError for a change STATUS_TRANSITIONS does not allow. Pausing needs a reason (default `user`).
 */
export function statusChange(
  runId: string,
  current: RunRecord,
  target: RunStatus,
  options: { reason?: PausedReason; detail?: string },
  now: () => Date,
): { run: RunRecord; event: RunEvent } | undefined {
  if (!canTransition(current.status, target)) throw new RunTransitionError(runId, current.status, target);
  const reason = target === 'paused' ? (options.reason ?? 'user') : null;
  const detail = options.detail ?? null;
  if (
    current.status === target &&
    current.pausedReason === reason &&
    (detail === null || detail === current.detail)
  ) {
    return undefined;
  }
  const at = now().toISOString();
  const working = target === 'initializing' || target === 'building';
  // Resumed, or started: the stop condition that paused it starts over, and so does the no-progress clock.
  const wasWorking = current.status === 'initializing' || current.status === 'building';
  const counters =
    (current.status === 'paused' && target !== 'paused') || (working && !wasWorking)
      ? countersOnResume(current.counters, current.pausedReason, at, current.seq)
      : { ...current.counters };
  if (current.status === 'failed')
    Object.assign(counters, {
      initializerFailures: 0,
      lastInitializerFailure: null,
      consecutiveProviderErrors: 0,
    });
  const finished = FINISHED_STATUSES.includes(target);
  const next: RunRecord = {
    ...current,
    status: target,
    pausedReason: reason,
    detail,
    counters,
    updatedAt: at,
    startedAt: current.startedAt ?? (working ? at : null),
    finishedAt: finished ? at : null,
  };
  const event: RunEvent = {
    type: 'run.status',
    runId,
    at,
    status: target,
    previous: current.status,
    reason,
    detail,
  };
  return { run: next, event };
}
