import { moduleLogger } from '../core/log.js';
import type { Orchestrator } from './orchestrator.js';
import type { PausedReason, RunRecord, RunStatus } from './run/run-state.js';

const log = moduleLogger('orchestrator/change-status');

/** Sets a status and tells the listener (webhooks, summaries); the listener never blocks the run. */
export async function changeStatus(
  orchestrator: Orchestrator,
  before: RunRecord,
  status: RunStatus,
  options: { reason?: PausedReason; detail?: string } = {},
): Promise<RunRecord> {
  const after = await orchestrator.store.setStatus(before.id, status, options);
  if (after.status !== before.status || after.pausedReason !== before.pausedReason) {
    await orchestrator.onStatusChange?.(before, after).catch((error) => {
      log.warn({ err: error, runId: before.id }, 'status listener failed');
    });
  }
  return after;
}
