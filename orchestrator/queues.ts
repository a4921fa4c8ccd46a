import { type ConnectionOptions, Queue } from 'bullmq';
import { z } from 'zod';
import { LaneAction } from './lanes/lane-scheduler.js';

/** The queue of role sessions: one job = one session of one run. */
export const SESSION_QUEUE = 'sessions';
/** The queue of harness chores: reconcile ticks, scheduled starts and deadlines, advances. */
export const CONTROL_QUEUE = 'control';
/** Every reconcile tick, in ms (DESIGN.md: 30 s). */
export const RECONCILE_EVERY_MS = 30_000;

/** A session job's data. */
export const SessionJobData = z.object({
  runId: z.string(),
  seq: z.number().int().positive(),
  /** Lanes mode: the slot (0 = the run's own: initializer, sweeps, merges; 1…N = a lane). Absent: a serial run. */
  slot: z.number().int().nonnegative().optional(),
  /** A role session, or (lanes mode) a merge of a lane into the run branch, which asks no model. */
  action: LaneAction,
});
export type SessionJobData = z.infer<typeof SessionJobData>;

/** A control job's data. */
export const ControlJobData = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('reconcile') }),
  z.object({ kind: z.literal('advance'), runId: z.string() }),
  z.object({
    kind: z.literal('scheduled-start'),
    runId: z.string(),
    forMs: z.number().int().positive().optional(),
    budgetUsd: z.number().positive().optional(),
  }),
]);
export type ControlJobData = z.infer<typeof ControlJobData>;

/** BullMQ's key prefix under ours, so one Redis can hold several nightshift installs (and tests). */
export function bullPrefix(prefix: string): string {
  return `${prefix}bull`;
}

/** Both queues of one install. */
export interface Queues {
  sessions: Queue;
  control: Queue;
  close(): Promise<void>;
}

/** Opens the session and control queues on a connection. */
export function openQueues(connection: ConnectionOptions, prefix: string): Queues {
  const options = { connection, prefix: bullPrefix(prefix) };
  const sessions = new Queue(SESSION_QUEUE, options);
  const control = new Queue(CONTROL_QUEUE, options);
  return {
    sessions,
    control,
    close: async () => {
      await Promise.all([sessions.close(), control.close()]);
    },
  };
}

/**
 * Workers connected to the session queue now: BullMQ's worker list (`Queue.getWorkersCount`, read from Redis's
 * `CLIENT LIST`, where every worker's connection carries the queue's name). A killed worker's connection closes with
 * it, so no heartbeat is needed. Null when Redis does not tell (a server that forbids `CLIENT LIST`).
 */
export async function connectedWorkers(queues: Pick<Queues, 'sessions'>): Promise<number | null> {
  return queues.sessions.getWorkersCount().catch(() => null);
}
