import { moduleLogger } from '../core/log.js';
import type { AdvanceResult } from './advance.js';
import { sessionJobId } from './keys.js';
import type { Orchestrator } from './orchestrator.js';
import type { SessionJobData } from './queues.js';
import type { RunRecord, SessionKind } from './run/run-state.js';

const log = moduleLogger('orchestrator/session-jobs');

/** BullMQ job states in which a session job still counts as in flight. */
export const IN_FLIGHT_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** Adds a session job (job id `<runId>-<seq>`) and appends `session.queued` (merges ask no model: no event). */
export async function addSessionJob(
  orchestrator: Orchestrator,
  run: RunRecord,
  data: SessionJobData,
): Promise<Extract<AdvanceResult, { kind: 'queued' }>> {
  const { seq, action } = data;
  const jobId = sessionJobId(run.id, seq);
  await orchestrator.queues.sessions.add('session', data, {
    jobId,
    attempts: 3,
    backoff: { type: 'exponential', delay: 5_000 },
    removeOnComplete: { age: 7 * 24 * 3600, count: 5_000 },
    removeOnFail: { age: 30 * 24 * 3600 },
  });
  log.info({ runId: run.id, seq, action: action.kind, slot: data.slot }, 'session queued');
  if (action.kind === 'merge') return { kind: 'queued', seq, jobId, action };
  const { role, kind, featureIds } = describeAction(action);
  await orchestrator.store.appendEvent(run.id, {
    type: 'session.queued',
    runId: run.id,
    at: orchestrator.now().toISOString(),
    seq,
    jobId,
    role,
    kind,
    featureIds,
  });
  return { kind: 'queued', seq, jobId, action };
}

/** The states of the run's latest session jobs: its own slot's and every lane's (jobs gone from the queue left out). */
export async function runJobStates(
  orchestrator: Pick<Orchestrator, 'queues'>,
  run: RunRecord,
): Promise<string[]> {
  const seqs = new Set([run.seq, run.mainSeq, ...run.lanes.map((lane) => lane.seq)].filter((seq) => seq > 0));
  const states: string[] = [];
  for (const seq of seqs) {
    const job = await orchestrator.queues.sessions.getJob(sessionJobId(run.id, seq));
    if (job) states.push(await job.getState());
  }
  return states;
}

/** A job's action that runs a role session (everything but a merge). */
export type SessionAction = Exclude<SessionJobData['action'], { kind: 'merge' }>;

/** The role, session kind and features of a session action. */
export function describeAction(action: SessionAction): {
  role: 'initializer' | 'generator' | 'evaluator';
  kind: SessionKind;
  featureIds: string[];
  mode?: 'evaluate' | 'regression';
} {
  switch (action.kind) {
    case 'initialize':
      return { role: 'initializer', kind: 'initialize', featureIds: [] };
    case 'generate':
      return { role: 'generator', kind: 'generate', featureIds: [action.featureId] };
    case 'evaluate':
      return { role: 'evaluator', kind: 'evaluate', featureIds: [action.featureId], mode: 'evaluate' };
    case 'regress':
      return { role: 'evaluator', kind: 'regress', featureIds: action.featureIds, mode: 'regression' };
  }
}
