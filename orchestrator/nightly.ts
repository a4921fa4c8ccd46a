import { z } from 'zod';
import { moduleLogger } from '../core/log.js';
import type { RunEvent, WindowSummary } from './events.js';
import { runKeys } from './keys.js';
import type { Orchestrator } from './orchestrator.js';
import { FINISHED_STATUSES, type RunRecord, type RunState } from './run/run-state.js';

const log = moduleLogger('orchestrator/nightly');

/** A window's snapshot outlives a forgotten run by this much, then Redis drops it (deleteRun does not know it). */
const WINDOW_TTL_SECONDS = 60 * 24 * 3600;

/** Where a scheduled window started: what passed, what it had cost, and the limits set for it. */
export const WindowSnapshot = z.object({
  runId: z.string(),
  /** When the window opened (ISO). */
  startedAt: z.string(),
  /** Ids of the features passing at the start. */
  passing: z.array(z.string()),
  /** The run's known cost at the start (USD). */
  costUsd: z.number().nonnegative(),
  /** The deadline set for the window, if any. */
  deadline: z.string().nullable(),
  /** The run's cost cap during the window (null: none). */
  maxCostUsd: z.number().positive().nullable(),
});
export type WindowSnapshot = z.infer<typeof WindowSnapshot>;

/** The `nightly.summary` event. */
export type NightlySummaryEvent = Extract<RunEvent, { type: 'nightly.summary' }>;

/**
 * What changed between a window's start and now (pure): features newly passing, regressions (passing at the
 * start, failing now), every feature blocked now (the ones a user has to look at), and the window's cost.
 */
export function summarizeWindow(start: WindowSnapshot, state: RunState): WindowSummary {
  const passedBefore = new Set(start.passing);
  const newlyPassing: string[] = [];
  const newlyFailing: string[] = [];
  const blocked: string[] = [];
  const blockedReasons: Array<{ featureId: string; reason: string }> = [];
  let passing = 0;
  for (const feature of state.features) {
    if (feature.passes) passing++;
    if (feature.passes && !passedBefore.has(feature.id)) newlyPassing.push(feature.id);
    if (!feature.passes && passedBefore.has(feature.id)) newlyFailing.push(feature.id);
    // A passing feature left with a stale blocked flag needs nobody (status and the run story skip it too).
    if (feature.blocked && !feature.passes) {
      blocked.push(feature.id);
      blockedReasons.push({ featureId: feature.id, reason: feature.blockedReason ?? 'blocked' });
    }
  }
  // Float sums of session costs drift in the last digits; cents-and-below precision is all anyone reads.
  const costUsd = Math.max(0, Math.round((state.run.counters.costUsd - start.costUsd) * 1e6) / 1e6);
  return {
    since: start.startedAt,
    newlyPassing,
    newlyFailing,
    blocked,
    blockedReasons,
    costUsd,
    passing,
    total: state.features.length,
  };
}

/** Pause reasons that end a scheduled window: the night's work is over until someone (or the next window) resumes. */
const WINDOW_CLOSING_PAUSES: readonly (RunRecord['pausedReason'] & string)[] = [
  'deadline',
  'budget',
  'stuck',
  'harness-error',
  'no-progress',
  'questions',
];

/** True when this status change ends a scheduled window: paused for a stop condition ({@link WINDOW_CLOSING_PAUSES}), or finished. */
export function closesWindow(before: RunRecord, after: RunRecord): boolean {
  if (before.status === after.status && before.pausedReason === after.pausedReason) return false;
  if (after.status === 'paused')
    return after.pausedReason !== null && WINDOW_CLOSING_PAUSES.includes(after.pausedReason);
  return FINISHED_STATUSES.includes(after.status);
}

/** The Redis key of a run's open window. */
export function windowKey(prefix: string, runId: string): string {
  return `${runKeys(prefix, runId).run}:window`;
}

/** Records the start of a window (replacing any open one; close that first to keep its summary). */
export async function openWindow(
  orchestrator: Pick<Orchestrator, 'redis' | 'prefix'>,
  snapshot: WindowSnapshot,
): Promise<WindowSnapshot> {
  const valid = WindowSnapshot.parse(snapshot);
  await orchestrator.redis.set(
    windowKey(orchestrator.prefix, valid.runId),
    JSON.stringify(valid),
    'EX',
    WINDOW_TTL_SECONDS,
  );
  return valid;
}

/** The run's open window, or undefined (none, or an unreadable one, which is logged). */
export async function readWindow(
  orchestrator: Pick<Orchestrator, 'redis' | 'prefix'>,
  runId: string,
): Promise<WindowSnapshot | undefined> {
  return decodeWindow(await orchestrator.redis.get(windowKey(orchestrator.prefix, runId)), runId);
}

/**
 * Closes the run's open window, if any: takes the snapshot atomically (so two processes seeing the same status
 * change emit one summary), summarizes it against the run now and appends the `nightly.summary` event.
 */
export async function closeWindow(
  orchestrator: Pick<Orchestrator, 'redis' | 'prefix' | 'store' | 'now'>,
  runId: string,
): Promise<NightlySummaryEvent | undefined> {
  const json = await orchestrator.redis.getdel(windowKey(orchestrator.prefix, runId));
  const start = decodeWindow(json, runId);
  if (!start) return undefined;
  const state = await orchestrator.store.loadState(runId);
  const event: NightlySummaryEvent = {
    type: 'nightly.summary',
    runId,
    at: orchestrator.now().toISOString(),
    ...summarizeWindow(start, state),
  };
  await orchestrator.store.appendEvent(runId, event);
  log.info(
    {
      runId,
      newlyPassing: event.newlyPassing.length,
      newlyFailing: event.newlyFailing.length,
      costUsd: event.costUsd,
    },
    'scheduled window closed',
  );
  return event;
}

/**
 * The nightly piece of a StatusListener: when the change ends a window ({@link closesWindow}) and one is open,
 * closes it and returns the `nightly.summary` event it appended; otherwise undefined. Never throws.
 */
export async function closeWindowOnStatusChange(
  orchestrator: Pick<Orchestrator, 'redis' | 'prefix' | 'store' | 'now'>,
  before: RunRecord,
  after: RunRecord,
): Promise<NightlySummaryEvent | undefined> {
  if (!closesWindow(before, after)) return undefined;
  try {
    return await closeWindow(orchestrator, after.id);
  } catch (error) {
    log.warn({ err: error, runId: after.id }, 'could not close the scheduled window');
    return undefined;
  }
}

function decodeWindow(json: string | null, runId: string): WindowSnapshot | undefined {
  if (!json) return undefined;
  try {
    const parsed = WindowSnapshot.safeParse(JSON.parse(json));
    if (parsed.success) return parsed.data;
    log.warn({ runId, issues: parsed.error.issues.slice(0, 3) }, 'invalid window snapshot; ignored');
  } catch (error) {
    log.warn({ runId, err: error }, 'unreadable window snapshot; ignored');
  }
  return undefined;
}
