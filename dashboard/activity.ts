import { usesLanes } from '../orchestrator/lanes/lanes.js';
import type { RunRecord, RunStore } from '../orchestrator/run/index.js';
import type { ActivityView, QueuedSessionView } from './api-types.js';

/** Recent events searched for the queued session's description (agent events are interleaved, so not just 1). */
const QUEUED_SCAN = 200;

/**
 * What the run is doing now: the session in flight (newest session without a result; with lanes, the newest of
 * the last few, as several run at once), else the session queued for a worker (the run's last seq has no session
 * record yet), else nothing.
 */
export async function runActivity(store: RunStore, run: RunRecord): Promise<ActivityView> {
  const limit = usesLanes(run.config) ? run.config.lanes + 1 : 1;
  const { sessions } = await store.listSessions(run.id, { offset: 0, limit, order: 'desc' });
  const newest = sessions[0];
  const running = sessions.find((session) => session.finishedAt === null);
  if (running) {
    const { seq, role, kind, featureIds, startedAt, workerId } = running;
    return { running: { seq, role, kind, featureIds, startedAt, workerId }, queued: null };
  }
  if (run.seq > (newest?.seq ?? 0)) return { running: null, queued: await queuedSession(store, run) };
  return { running: null, queued: null };
}

async function queuedSession(store: RunStore, run: RunRecord): Promise<QueuedSessionView | null> {
  const events = await store.readEvents(run.id, { latest: true, count: QUEUED_SCAN });
  for (const { event } of events.reverse()) {
    if (event.type === 'session.queued' && event.seq === run.seq) {
      const { seq, role, kind, featureIds, at } = event;
      return { seq, role, kind, featureIds, at };
    }
  }
  // With lanes, a seq without a session may be a merge (no model, no `session.queued`): the Lanes card shows it.
  if (usesLanes(run.config)) return null;
  return { seq: run.seq, role: null, kind: null, featureIds: [], at: null };
}
