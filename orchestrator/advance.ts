import { changeStatus } from './change-status.js';
import { sessionJobId } from './keys.js';
import { advanceLanes } from './lanes/advance-lanes.js';
import { usesLanes } from './lanes/lanes.js';
import type { Orchestrator } from './orchestrator.js';
import { expiredQuestions, expireQuestions } from './questions.js';
import type { SessionJobData } from './queues.js';
import { withShortRunLock } from './run/run-lock.js';
import {
  ACTIVE_STATUSES,
  blockedSummary,
  type PausedReason,
  type RunRecord,
  type RunState,
  type RunStatus,
} from './run/run-state.js';
import { type NextAction, nextAction } from './scheduler.js';
import { addSessionJob, IN_FLIGHT_STATES, type SessionAction } from './session-jobs.js';

/** How long one advance may hold the run's advance mutex (a steering action waits as long for it). */
export const ADVANCE_MUTEX_MS = 15_000;

/**
 * Runs a person's change of the run under its advance mutex, so that an advance that read the run before it cannot
 * then act as if it had not happened (a reopen landing as the run ends would leave it incomplete with nothing queued).
 * Waits as long as an advance may hold the mutex; past that, `work` runs without it (`locked` false: the change
 * goes to the store alone, nothing that needs the run at rest).
 */
export async function withAdvanceMutex<T>(
  orchestrator: Pick<Orchestrator, 'redis' | 'prefix'>,
  runId: string,
  work: (locked: boolean) => Promise<T>,
): Promise<T> {
  const lock = { name: 'advance', ttlMs: ADVANCE_MUTEX_MS, waitMs: ADVANCE_MUTEX_MS, pollMs: 50 };
  const held = await withShortRunLock(orchestrator.redis, orchestrator.prefix, runId, lock, async () => ({
    value: await work(true),
  }));
  return held ? held.value : work(false);
}

/** Options of {@link advanceRun}. */
export interface AdvanceOptions {
  /** The session job calling from inside its processor: it is done, though BullMQ still calls it active. */
  finishedJobId?: string;
}

/** What {@link advanceRun} did. */
export type AdvanceResult =
  | { kind: 'queued'; seq: number; jobId: string; action: SessionJobData['action'] }
  | { kind: 'in-flight'; jobId: string }
  | { kind: 'status'; status: RunStatus; reason?: string }
  | { kind: 'idle'; reason: string }
  | { kind: 'busy' };

/**
 * Level-triggered step of a run: looks at its state and makes the one thing that should happen next
 * happen — enqueue the next session (job id `<runId>-<seq>`), or change the status (finish, pause, fail).
 * Idempotent and safe to call from anywhere at any time (worker after a session, reconciler, CLI): a
 * short per-run mutex keeps two advancers from enqueueing twice, and an in-flight job means nothing to do.
 */
export async function advanceRun(
  orchestrator: Orchestrator,
  runId: string,
  options: AdvanceOptions = {},
): Promise<AdvanceResult> {
  // A finishing job waits its turn: in lanes mode another lane's advance may hold the mutex, and one that saw
  // this job still active planned nothing for its slot.
  const result = await withShortRunLock(
    orchestrator.redis,
    orchestrator.prefix,
    runId,
    {
      name: 'advance',
      ttlMs: ADVANCE_MUTEX_MS,
      waitMs: options.finishedJobId ? ADVANCE_MUTEX_MS : 0,
      pollMs: 50,
    },
    () => advanceLocked(orchestrator, runId, options),
  );
  return result ?? { kind: 'busy' };
}

async function advanceLocked(
  orchestrator: Orchestrator,
  runId: string,
  options: AdvanceOptions,
): Promise<AdvanceResult> {
  const { store, queues } = orchestrator;
  let state = await store.loadState(runId);
  if (!ACTIVE_STATUSES.includes(state.run.status))
    return { kind: 'idle', reason: `run is ${state.run.status}` };
  // A question nobody answered in time is answered "decide yourself": its feature goes on.
  if (expiredQuestions(state.run, orchestrator.now()).length > 0)
    state = { ...state, run: await expireQuestions(orchestrator, state.run) };
  const { run } = state;
  if (usesLanes(run.config)) return advanceLanes(orchestrator, state, options, applyAction);
  if (run.seq > 0) {
    const jobId = sessionJobId(runId, run.seq);
    const job = await queues.sessions.getJob(jobId);
    const finishing = options.finishedJobId === jobId;
    if (job && !finishing && IN_FLIGHT_STATES.has(await job.getState())) return { kind: 'in-flight', jobId };
  }
  const action = nextAction(state, orchestrator.now());
  return applyAction(orchestrator, state, action);
}

/** Applies a run-level action (finish, pause, fail, wait) or enqueues a serial run's session. */
async function applyAction(
  orchestrator: Orchestrator,
  { run, features }: RunState,
  action: NextAction,
): Promise<AdvanceResult> {
  switch (action.kind) {
    case 'finish': {
      // Blocked features left: the app is not all built, so the run is `incomplete`, not `done`.
      if (features.some((feature) => feature.blocked && !feature.passes)) {
        await changeStatus(orchestrator, run, 'incomplete', { detail: blockedSummary(features) });
        return { kind: 'status', status: 'incomplete' };
      }
      await changeStatus(orchestrator, run, 'done');
      return { kind: 'status', status: 'done' };
    }
    case 'pause':
      await pauseForStopCondition(orchestrator, run, action.reason, action.detail);
      return { kind: 'status', status: 'paused', reason: action.reason };
    case 'fail':
      await changeStatus(orchestrator, run, 'failed', { detail: action.reason });
      return { kind: 'status', status: 'failed', reason: action.reason };
    case 'wait':
      return { kind: 'idle', reason: action.reason };
    default:
      return enqueueSession(orchestrator, run, action);
  }
}

async function pauseForStopCondition(
  orchestrator: Orchestrator,
  run: RunRecord,
  reason: PausedReason,
  detail: string,
) {
  if (reason !== 'user' && reason !== 'rate-limited' && reason !== 'questions') {
    await orchestrator.store.appendEvent(run.id, {
      type: 'budget.exceeded',
      runId: run.id,
      at: orchestrator.now().toISOString(),
      reason,
      detail,
    });
  }
  await changeStatus(orchestrator, run, 'paused', { reason, detail });
}

async function enqueueSession(
  orchestrator: Orchestrator,
  run: RunRecord,
  action: SessionAction,
): Promise<AdvanceResult> {
  const working: RunStatus = action.kind === 'initialize' ? 'initializing' : 'building';
  if (run.status !== working) await changeStatus(orchestrator, run, working);
  const seq = await orchestrator.store.nextSeq(run.id);
  return addSessionJob(orchestrator, run, { runId: run.id, seq, action });
}
