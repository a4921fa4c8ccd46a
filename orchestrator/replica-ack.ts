/**
 * Writes that must outlive a Sentinel failover. Redis replicates asynchronously: a write the master acknowledged
 * may not have reached the replica when the master dies, and the replica promoted in its place never had it. A
 * session's result (its commits, verdicts and cost) is such a write: lost, the run's next advance plans from the
 * state before it and the session is done again. So on Sentinel, after that write, the harness asks
 * `WAIT replicas timeout` and reads the write back; when the master now answering lacks it (a failover came between
 * the write and the read), it writes it again (the write is idempotent). One round trip to a replica and one read
 * per session result. Only Sentinel: one server has no replica to wait for, and a Cluster keeps nightshift's keys
 * on one master whose replicas (if any) the Cluster promotes on its own terms (docs/operations.md).
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import type { RedisTopology } from '../core/redis-url.js';

const log = moduleLogger('orchestrator/replica-ack');

/** `redisWait` in the config: how many replicas a session's result waits for, and how long at most. */
export const RedisWait = z.strictObject({
  /** Replicas that must have a session's result before the worker goes on; 0 turns the wait off. */
  replicas: z.number().int().min(0).default(1),
  /** The longest one wait lasts: a replica down must not stall the night, so the worker then goes on (warned). */
  timeoutMs: z.number().int().min(1).default(1_000),
});
export type RedisWait = z.infer<typeof RedisWait>;

/** The wait a store uses on a topology: the configured one on Sentinel (when `replicas` > 0), else none. */
export function redisWaitFor(
  topology: Pick<RedisTopology, 'kind'> | undefined,
  settings: RedisWait,
): RedisWait | undefined {
  return topology?.kind === 'sentinel' && settings.replicas > 0 ? settings : undefined;
}

/** A critical write went missing from Redis again and again right after it was written. */
export class DurableWriteError extends NightshiftError {
  constructor(what: string, attempts: number) {
    super('REDIS_WRITE_LOST', `Redis lost ${what} ${attempts} times in a row right after writing it.`, {
      hint: "Failovers follow each other: check the Sentinel set with `nightshift doctor` and the sentinels' logs.",
    });
  }
}

/** A write that must survive a failover, and how to tell it is there. */
export interface DurableWrite<T> {
  /** What it is, for logs and errors ("the result of session 4 of run r-…"). */
  what: string;
  /** The write; it must be idempotent (it may run again when the master lost it). */
  write(): Promise<T>;
  /** Whether the master answering now has it. */
  landed(): Promise<boolean>;
}

/** How often a write is repeated after vanishing before the harness gives up on it. */
const MAX_WRITES = 3;

/**
 * Writes, waits for replicas (WAIT) and reads back, writing again while the master that answers lacks the write.
 * Without `wait` (one server, a Cluster, turned off) it only writes. Returns what the last write returned.
 */
export async function writeDurably<T>(
  redis: Redis,
  wait: RedisWait | undefined,
  durable: DurableWrite<T>,
): Promise<T> {
  let result = await durable.write();
  if (!wait) return result;
  for (let attempt = 1; ; attempt++) {
    const acknowledged = await waitForReplicas(redis, wait);
    if (acknowledged < wait.replicas) {
      log.warn(
        { what: durable.what, acknowledged, wanted: wait.replicas, timeoutMs: wait.timeoutMs },
        'fewer replicas than asked have the write: a failover now could lose it (is a replica down?)',
      );
    }
    if (await durable.landed()) return result;
    if (attempt >= MAX_WRITES) throw new DurableWriteError(durable.what, attempt);
    log.warn(
      { what: durable.what, attempt },
      'the write vanished from Redis (lost at a failover): writing it again',
    );
    result = await durable.write();
  }
}

/** Replicas that acknowledged everything this connection wrote; 0 when the connection failed meanwhile. */
async function waitForReplicas(redis: Redis, wait: RedisWait): Promise<number> {
  try {
    return await redis.wait(wait.replicas, wait.timeoutMs);
  } catch (error) {
    // The master died during the wait: what it had sent its replica is unknown, so the read-back decides.
    log.debug({ err: error }, 'WAIT failed');
    return 0;
  }
}
