import type { RunRecord } from '../orchestrator/run-state.js';
import type { RunStore } from '../orchestrator/run-store.js';
import type { ActivityView, QueuedSessionView } from './api-types.js';

/** Recent events searched for the queued session's description (agent events are interleaved, so not just 1). */
const QUEUED_SCAN = 200;

/**
 * What the run is doing now: the session in flight (newest session without a result), else the session queued
 * for a worker (the run's last seq has no session record yet), else nothing.
 */
export async function runActivity(store: RunStore, run: RunRecord): Promise<ActivityView> {
  const { sessions } = await store.listSessions(run.id, { offset: 0, limit: 1, order: 'desc' });
  const newest = sessions[0];
  if (newest && newest.finishedAt === null) {
    const { seq, role, kind, featureIds, startedAt, workerId } = newest;
    return { running: { seq, role, kind, featureIds, startedAt, workerId }, queued: null };
  }
  if (run.seq > (newest?.seq ?? 0)) return { running: null, queued: await queuedSession(store, run) };
  return { running: null, queued: null };
}

async function queuedSession(store: RunStore, run: RunRecord): Promise<QueuedSessionView> {
  const events = await store.readEvents(run.id, { latest: true, count: QUEUED_SCAN });
  for (const { event } of events.reverse()) {
    if (event.type === 'session.queued' && event.seq === run.seq) {
      const { seq, role, kind, featureIds, at } = event;
      return { seq, role, kind, featureIds, at };
    }
  }
  return { seq: run.seq, role: null, kind: null, featureIds: [], at: null };
}
