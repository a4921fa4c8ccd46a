import { getNextMillis } from 'bullmq';
import { z } from 'zod';
import { InputError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { advanceRun } from './advance.js';
import { resumeRun } from './controls.js';
import { assertRunId } from './keys.js';
import { closeWindow, openWindow, type WindowSnapshot } from './nightly.js';
import type { Orchestrator } from './orchestrator.js';
import { ControlJobData } from './queues.js';
import type { RunRecord } from './run/run-state.js';

const log = moduleLogger('orchestrator/schedules');

/** The job scheduler id of a run's schedule on the control queue. */
export function scheduleId(runId: string): string {
  return `schedule-${runId}`;
}

/** Delayed advance after a window's deadline; a little late so the scheduler sees the deadline as passed. */
const DEADLINE_SLACK_MS = 500;

/** What addSchedule needs. */
export const ScheduleInput = z.object({
  runId: z.string(),
  /** Cron pattern, 5 fields (minute…weekday) or 6 with seconds first. */
  cron: z.string().min(1),
  /** IANA time zone of the pattern; default: this machine's zone, fixed at the time the schedule is added. */
  tz: z.string().min(1).optional(),
  /** Length of each window (ms): the run pauses at the first safe point after start + forMs. */
  forMs: z.number().int().positive().optional(),
  /** Spending allowed per window (USD), on top of the run's cost at the window start. */
  budgetUsd: z.number().positive().optional(),
});
export type ScheduleInput = z.input<typeof ScheduleInput>;

/** One schedule as listed. */
export interface ScheduleInfo {
  runId: string;
  cron: string;
  tz: string;
  forMs: number | null;
  budgetUsd: number | null;
  /** The next start (ISO), null when BullMQ has none planned. */
  next: string | null;
}

/** Throws an InputError naming `tz` unless it is an IANA time zone this Node knows. */
export function validateTimeZone(tz: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw new InputError('SCHEDULE_TZ_INVALID', `Unknown time zone "${tz}".`, {
      hint: 'Use an IANA time zone name, e.g. Europe/Berlin, America/New_York or UTC.',
    });
  }
}

/** A cron pattern with its fields separated by single spaces. */
export function normalizeCron(cron: string): string {
  return cron.trim().split(/\s+/).join(' ');
}

/**
 * Throws an InputError naming `cron` unless it is a pattern of 5 fields (6 with seconds first) or an alias like
 * `@daily` that fires; returns the next start (ms). cron-parser alone fills missing fields in, so `1 2 3` would pass.
 */
export function validateCron(cron: string, tz: string, fromMs: number): number {
  const pattern = normalizeCron(cron);
  const fields = pattern ? pattern.split(' ').length : 0;
  let next: number | undefined;
  let why = 'it never fires';
  if (pattern.startsWith('@') ? fields !== 1 : fields < 5 || fields > 6) {
    why = `it has ${fields} field${fields === 1 ? '' : 's'}, not 5 or 6`;
  } else {
    try {
      next = getNextMillis(fromMs, { pattern, tz });
    } catch (error) {
      why = error instanceof Error ? error.message : String(error);
    }
  }
  if (next === undefined || !Number.isFinite(next)) {
    throw new InputError('SCHEDULE_CRON_INVALID', `Invalid cron pattern "${cron}": ${why}.`, {
      hint:
        'Use 5 fields (minute hour day-of-month month day-of-week), e.g. "0 1 * * *" for 01:00 every night, ' +
        'or 6 with seconds first, e.g. "*/30 * * * * *".',
    });
  }
  return next;
}

/** The time zone of this machine (what a schedule without `--tz` uses). */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * Schedules a run to start (or resume) on a cron pattern, through a BullMQ job scheduler on the control queue;
 * adding again replaces the run's schedule. Throws InputError for a bad pattern or zone, an unknown run, or one
 * that is done or cancelled.
 */
export async function addSchedule(orchestrator: Orchestrator, input: ScheduleInput): Promise<ScheduleInfo> {
  const parsed = ScheduleInput.parse(input);
  assertRunId(parsed.runId);
  const tz = validateTimeZone(parsed.tz ?? localTimeZone());
  const cron = normalizeCron(parsed.cron);
  validateCron(cron, tz, orchestrator.now().getTime());
  const run = await orchestrator.store.getRun(parsed.runId);
  if (run.status === 'done' || run.status === 'incomplete' || run.status === 'cancelled') {
    throw new InputError(
      'SCHEDULE_RUN_FINISHED',
      `Run ${run.id} is ${run.status}; there is nothing to schedule.`,
      {
        hint: 'Start a new run with `nightshift run SPEC --detach` and schedule that one.',
      },
    );
  }
  const data: ControlJobData = {
    kind: 'scheduled-start',
    runId: parsed.runId,
    ...(parsed.forMs !== undefined && { forMs: parsed.forMs }),
    ...(parsed.budgetUsd !== undefined && { budgetUsd: parsed.budgetUsd }),
  };
  await orchestrator.queues.control.upsertJobScheduler(
    scheduleId(parsed.runId),
    { pattern: cron, tz },
    {
      name: 'scheduled-start',
      data,
      opts: { removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } },
    },
  );
  log.info({ runId: parsed.runId, cron, tz }, 'schedule added');
  const added = await findSchedule(orchestrator, parsed.runId);
  if (!added) throw new Error(`schedule of ${parsed.runId} vanished right after it was added`);
  return added;
}

/** Every run schedule, soonest next start first. */
export async function listSchedules(orchestrator: Orchestrator): Promise<ScheduleInfo[]> {
  const schedulers = await orchestrator.queues.control.getJobSchedulers(0, -1, true);
  return schedulers.flatMap((scheduler) => {
    const info = toScheduleInfo(scheduler);
    return info ? [info] : [];
  });
}

/** Removes a run's schedule; false when it had none. A window already running goes on to its deadline. */
export async function removeSchedule(orchestrator: Orchestrator, runId: string): Promise<boolean> {
  const removed = await orchestrator.queues.control.removeJobScheduler(scheduleId(runId));
  if (removed) log.info({ runId }, 'schedule removed');
  return removed;
}

/** The run's next scheduled start (ISO), or null (for `runs`, `status` and the dashboard). */
export async function nextScheduledStart(orchestrator: Orchestrator, runId: string): Promise<string | null> {
  return (await findSchedule(orchestrator, runId))?.next ?? null;
}

async function findSchedule(orchestrator: Orchestrator, runId: string): Promise<ScheduleInfo | undefined> {
  const scheduler = await orchestrator.queues.control.getJobScheduler(scheduleId(runId));
  return scheduler ? toScheduleInfo({ ...scheduler, key: scheduler.key ?? scheduleId(runId) }) : undefined;
}

interface SchedulerJson {
  key: string;
  id?: string | null;
  pattern?: string;
  tz?: string;
  next?: number;
  template?: { data?: unknown };
}

function toScheduleInfo(scheduler: SchedulerJson): ScheduleInfo | undefined {
  const data = ControlJobData.safeParse(scheduler.template?.data);
  if (!data.success || data.data.kind !== 'scheduled-start' || !scheduler.pattern) return undefined;
  return {
    runId: data.data.runId,
    cron: scheduler.pattern,
    tz: scheduler.tz ?? 'UTC',
    forMs: data.data.forMs ?? null,
    budgetUsd: data.data.budgetUsd ?? null,
    next: scheduler.next ? new Date(scheduler.next).toISOString() : null,
  };
}

/** The data of a `scheduled-start` control job. */
export type ScheduledStartData = Extract<ControlJobData, { kind: 'scheduled-start' }>;

/** What handleScheduledStart did. */
export type ScheduledStartResult =
  | { kind: 'started'; status: RunRecord['status']; window: WindowSnapshot }
  | { kind: 'removed'; reason: string }
  | { kind: 'skipped'; reason: string };

/**
 * A schedule fired: opens a window on the run. Sets the run's deadline to now + forMs and its cost cap to the cost
 * so far + budgetUsd, records the window's starting point (closing a window still open, with its summary), then
 * resumes a paused run or advances an active one. A failed run is left alone (a person has to fix its cause); a
 * done, cancelled or deleted run loses its schedule.
 */
export async function handleScheduledStart(
  orchestrator: Orchestrator,
  data: ScheduledStartData,
): Promise<ScheduledStartResult> {
  const { runId } = data;
  const found = await orchestrator.store.findRun(runId);
  if (!found || found.status === 'done' || found.status === 'incomplete' || found.status === 'cancelled') {
    const reason = found ? `run is ${found.status}` : 'run does not exist';
    await removeSchedule(orchestrator, runId);
    log.info({ runId, reason }, 'scheduled start: schedule removed');
    return { kind: 'removed', reason };
  }
  if (found.status === 'failed') {
    log.warn(
      { runId, detail: found.detail },
      'scheduled start skipped: the run failed; fix it and resume it',
    );
    return { kind: 'skipped', reason: `run failed: ${found.detail ?? 'no detail'}` };
  }
  await closeWindow(orchestrator, runId);
  const now = orchestrator.now();
  await orchestrator.store.updateConfig(runId, (config) => {
    const budgets = { ...config.budgets };
    if (data.forMs !== undefined) budgets.deadline = new Date(now.getTime() + data.forMs).toISOString();
    // A window without its own length must not be cut short by an old window's deadline.
    else if (budgets.deadline && Date.parse(budgets.deadline) <= now.getTime()) delete budgets.deadline;
    if (data.budgetUsd !== undefined) budgets.maxCostUsd = roundUsd(found.counters.costUsd + data.budgetUsd);
    return { ...config, budgets };
  });
  // The window begins by replaying every recorded check (a regression sweep: no model request if all are green).
  await orchestrator.store.requestWindowSweep(runId);
  const { run, features } = await orchestrator.store.loadState(runId);
  const window = await openWindow(orchestrator, {
    runId,
    startedAt: now.toISOString(),
    passing: features.filter((feature) => feature.passes).map((feature) => feature.id),
    costUsd: run.counters.costUsd,
    deadline: run.config.budgets.deadline ?? null,
    maxCostUsd: run.config.budgets.maxCostUsd,
  });
  if (data.forMs !== undefined) await queueDeadlineAdvance(orchestrator, runId, data.forMs, now);
  if (run.status === 'paused') await resumeRun(orchestrator, runId, { evenIfStillStopped: true });
  else await advanceRun(orchestrator, runId);
  // Read back: the advance may already have paused it again (say, a run budget without a window budget).
  const { status } = await orchestrator.store.getRun(runId);
  log.info(
    { runId, status, deadline: window.deadline, maxCostUsd: window.maxCostUsd },
    'scheduled window started',
  );
  return { kind: 'started', status, window };
}

/**
 * The planner pauses at the deadline on the next advance; after each session there is one, but a run waiting on
 * nothing (no session in flight) would otherwise wait for the reconciler. This advance comes on time.
 */
async function queueDeadlineAdvance(orchestrator: Orchestrator, runId: string, forMs: number, now: Date) {
  const deadlineMs = now.getTime() + forMs;
  await orchestrator.queues.control.add('advance', { kind: 'advance', runId } satisfies ControlJobData, {
    jobId: `deadline-${runId}-${deadlineMs}`,
    delay: forMs + DEADLINE_SLACK_MS,
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 100 },
  });
}

function roundUsd(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
