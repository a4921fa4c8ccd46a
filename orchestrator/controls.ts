import { advanceRun, changeStatus } from './advance.js';
import { sessionJobId } from './keys.js';
import type { Orchestrator } from './orchestrator.js';
import type { FeatureState, RunRecord } from './run-state.js';
import { resumeStatus } from './transitions.js';

/**
 * Pauses a run at the next safe point: no new session is queued, and a session in flight ends at its
 * next turn with a checkpoint (workers check the status before each model request).
 */
export async function pauseRun(
  orchestrator: Orchestrator,
  runId: string,
  detail = 'paused by the user',
): Promise<RunRecord> {
  const run = await orchestrator.store.getRun(runId);
  const paused = await changeStatus(orchestrator, run, 'paused', { reason: 'user', detail });
  await removeWaitingJob(orchestrator, paused);
  return paused;
}

/** Resumes a paused (or failed) run and queues its next session. */
export async function resumeRun(orchestrator: Orchestrator, runId: string): Promise<RunRecord> {
  const deadline = (await orchestrator.store.getRun(runId)).config.budgets.deadline;
  if (deadline && Date.parse(deadline) <= orchestrator.now().getTime()) {
    // A passed deadline would pause the run again at once: resuming means "go on", so it is cleared.
    await orchestrator.store.updateConfig(runId, (config) => ({
      ...config,
      budgets: { ...config.budgets, deadline: undefined },
    }));
  }
  const state = await orchestrator.store.loadState(runId);
  const resumed = await changeStatus(orchestrator, state.run, resumeStatus(state.features.length));
  await advanceRun(orchestrator, runId);
  return resumed;
}

/** Cancels a run for good; a session in flight stops at its next turn with a checkpoint. */
export async function cancelRun(orchestrator: Orchestrator, runId: string): Promise<RunRecord> {
  const run = await orchestrator.store.getRun(runId);
  const cancelled = await changeStatus(orchestrator, run, 'cancelled', { detail: 'cancelled by the user' });
  await removeWaitingJob(orchestrator, cancelled);
  return cancelled;
}

/** Clears a feature's attempts and blocked flag so the planner picks it up again, and advances the run. */
export async function retryFeature(
  orchestrator: Orchestrator,
  runId: string,
  featureId: string,
): Promise<FeatureState> {
  const feature = await orchestrator.store.retryFeature(runId, featureId);
  await advanceRun(orchestrator, runId);
  return feature;
}

/** A queued (not yet started) session of a stopped run is dropped; a running one stops by itself. */
async function removeWaitingJob(orchestrator: Orchestrator, run: RunRecord): Promise<void> {
  if (run.seq === 0) return;
  const job = await orchestrator.queues.sessions.getJob(sessionJobId(run.id, run.seq));
  if (job && ['waiting', 'delayed', 'prioritized'].includes(await job.getState())) {
    await job.remove().catch(() => undefined);
  }
}
