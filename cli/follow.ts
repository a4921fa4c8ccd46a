import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { FINISHED_STATUSES, knownCostUsd, type RunRecord } from '../orchestrator/run-state.js';
import { createProgressRenderer, type ProgressRenderer } from './progress.js';

/** Statuses after which `run` stops following (a rate-limited pause resumes by itself, so it is followed). */
export function hasEnded(run: RunRecord): boolean {
  return (
    FINISHED_STATUSES.includes(run.status) || (run.status === 'paused' && run.pausedReason !== 'rate-limited')
  );
}

/** Options of {@link followRun}. */
export interface FollowOptions {
  stream: NodeJS.WriteStream | (Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean; columns?: number });
  /** Poll interval in ms (default 500). */
  intervalMs?: number;
  signal?: AbortSignal;
}

/**
 * Shows a run's live progress (passing/total bar, current role and feature, cost, elapsed) until it
 * ends, then prints the summary line and returns the final record.
 */
export async function followRun(
  orchestrator: Orchestrator,
  runId: string,
  options: FollowOptions,
): Promise<RunRecord> {
  const renderer: ProgressRenderer = createProgressRenderer({
    stream: options.stream,
    isTTY: Boolean(options.stream.isTTY),
    now: orchestrator.now,
  });
  const started = orchestrator.now().getTime();
  for (;;) {
    const run = await orchestrator.store.getRun(runId);
    const elapsedMs = orchestrator.now().getTime() - started;
    if (hasEnded(run) || options.signal?.aborted) {
      renderer.done({
        status: run.status,
        pausedReason: run.pausedReason,
        detail: run.detail,
        features: run.features,
        sessions: run.counters.sessions,
        costUsd: knownCostUsd(run.counters),
        elapsedMs,
      });
      return run;
    }
    const { sessions } = await orchestrator.store.listSessions(runId, { offset: 0, limit: 1, order: 'desc' });
    const latest = sessions[0];
    renderer.update({
      run,
      current:
        latest && !latest.finishedAt
          ? { role: latest.role, featureIds: latest.featureIds, startedAt: latest.startedAt }
          : null,
      costUsd: knownCostUsd(run.counters),
      elapsedMs,
    });
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 500));
  }
}
