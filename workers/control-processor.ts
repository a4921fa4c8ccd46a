import type { Job } from 'bullmq';
import { moduleLogger } from '../core/log.js';
import { advanceRun } from '../orchestrator/advance.js';
import { resumeRun } from '../orchestrator/controls.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { ControlJobData } from '../orchestrator/queues.js';
import { ACTIVE_STATUSES } from '../orchestrator/run/index.js';
import { readRateLimit } from './rate-limit.js';

const log = moduleLogger('workers/control-processor');

/** Handlers for control jobs that other modules own (scheduled starts). */
export interface ControlHandlers {
  scheduledStart?(
    orchestrator: Orchestrator,
    data: Extract<ControlJobData, { kind: 'scheduled-start' }>,
  ): Promise<unknown>;
  /** After each reconcile tick (tidying finished runs whose sessions have ended since). */
  afterReconcile?(orchestrator: Orchestrator): Promise<unknown>;
}

/** Runs one control job: a reconcile tick, an advance, or a scheduled start. */
export async function processControlJob(
  orchestrator: Orchestrator,
  handlers: ControlHandlers,
  job: Job,
): Promise<string> {
  const data = ControlJobData.parse(job.data);
  switch (data.kind) {
    case 'reconcile': {
      const advanced = await reconcile(orchestrator);
      await handlers
        .afterReconcile?.(orchestrator)
        .catch((error: unknown) => log.warn({ err: error }, 'after the reconcile tick'));
      return `advanced ${advanced} run(s)`;
    }
    case 'advance':
      return (await advanceRun(orchestrator, data.runId)).kind;
    case 'scheduled-start':
      if (!handlers.scheduledStart) throw new Error('this worker cannot handle scheduled starts');
      await handlers.scheduledStart(orchestrator, data);
      return 'started';
  }
}

/**
 * The reconciler: every active run without a session in flight is advanced (a crash between a session's
 * end and its advance, or a lost job, heals here), and runs paused by a rate limit resume when it expires.
 */
export async function reconcile(orchestrator: Orchestrator): Promise<number> {
  const runs = await orchestrator.store.listRuns({ status: [...ACTIVE_STATUSES, 'paused'] });
  let advanced = 0;
  for (const run of runs) {
    try {
      if (run.status === 'paused') {
        if (run.pausedReason !== 'rate-limited') continue;
        const limit = await readRateLimit(orchestrator, run.id);
        if (limit && Date.parse(limit.resumeAt) > orchestrator.now().getTime()) continue;
        await resumeRun(orchestrator, run.id);
        advanced++;
        continue;
      }
      const result = await advanceRun(orchestrator, run.id);
      if (result.kind !== 'in-flight' && result.kind !== 'busy') advanced++;
    } catch (error) {
      log.warn({ err: error, runId: run.id }, 'reconcile of a run failed');
    }
  }
  return advanced;
}
