import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { moduleLogger } from '../../core/log.js';
import { runKeys } from '../keys.js';

const log = moduleLogger('orchestrator/run-lock');

/** Lock lifetime without renewal: a dead holder blocks its run at most this long (workers pass the job lock's). */
export const RUN_LOCK_TTL_MS = 10_000;
/** How often a live holder renews. */
export const RUN_LOCK_RENEW_MS = 2_500;

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** A held per-run lock: renewed in the background until released; `lost` fires if renewal fails. */
export interface HeldRunLock {
  readonly token: string;
  /** Aborted when the lock could not be renewed: the holder must stop at once. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

/** Options of {@link acquireRunLock}. */
export interface AcquireRunLockOptions {
  /** How long to keep trying while another holder has it (a dead holder's lock expires after the TTL). */
  waitMs?: number;
  /** Lifetime without renewal (default {@link RUN_LOCK_TTL_MS}). */
  ttlMs?: number;
  /** Renewal period (default {@link RUN_LOCK_RENEW_MS}). */
  renewMs?: number;
  /** Poll interval while waiting. */
  pollMs?: number;
  /** A lane's own lock (`lane-2`) instead of the run's: lanes of one run work at once, each one at a time. */
  name?: string;
}

/**
 * Takes the run's session lock with `token` (the job id plus the worker instance, so two deliveries of one
 * stalled job still differ). Only one session of a run holds it at a time. Returns undefined when another
 * holder kept it for the whole wait.
 */
export async function acquireRunLock(
  redis: Redis,
  prefix: string,
  runId: string,
  token: string,
  options: AcquireRunLockOptions = {},
): Promise<HeldRunLock | undefined> {
  const key = runLockKey(prefix, runId, options.name);
  const ttl = options.ttlMs ?? RUN_LOCK_TTL_MS;
  if (!(await takeLock(redis, key, token, ttl, options.waitMs ?? 0, options.pollMs ?? 1_000)))
    return undefined;
  return holdLock(redis, key, token, ttl, options.renewMs ?? RUN_LOCK_RENEW_MS);
}

/** Options of {@link withShortRunLock}. */
export interface ShortRunLockOptions {
  /** The lock's name under the run's (`advance`). */
  name: string;
  /** Lifetime: never renewed, so a holder that dies or overruns blocks the run at most this long. */
  ttlMs: number;
  /** How long to keep trying while another holder has it (0: one try). */
  waitMs: number;
  /** Poll interval while waiting. */
  pollMs: number;
}

/**
 * Runs `work` holding a short, unrenewed per-run lock, then releases it (only if still ours); returns undefined
 * without running `work` when another holder kept the lock for the whole wait.
 */
export async function withShortRunLock<T>(
  redis: Redis,
  prefix: string,
  runId: string,
  options: ShortRunLockOptions,
  work: () => Promise<T>,
): Promise<T | undefined> {
  const key = runLockKey(prefix, runId, options.name);
  const token = randomUUID();
  if (!(await takeLock(redis, key, token, options.ttlMs, options.waitMs, options.pollMs))) return undefined;
  try {
    return await work();
  } finally {
    await redis.eval(RELEASE, 1, key, token);
  }
}

function runLockKey(prefix: string, runId: string, name?: string): string {
  const base = runKeys(prefix, runId).lock;
  return name ? `${base}:${name}` : base;
}

/** Sets the lock to `token` if free, trying every `pollMs` until `waitMs` has passed; true once taken. */
async function takeLock(
  redis: Redis,
  key: string,
  token: string,
  ttl: number,
  waitMs: number,
  pollMs: number,
): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while ((await redis.set(key, token, 'PX', ttl, 'NX')) !== 'OK') {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return true;
}

function holdLock(redis: Redis, key: string, token: string, ttl: number, renewMs: number): HeldRunLock {
  const lost = new AbortController();
  const timer = setInterval(async () => {
    try {
      const renewed = await redis.eval(RENEW, 1, key, token, String(ttl));
      if (renewed !== 1) throw new Error('the lock is held by someone else or expired');
    } catch (error) {
      log.error({ err: error, key, token }, 'run lock lost: stopping the session');
      clearInterval(timer);
      lost.abort(new Error(`run lock lost: ${(error as Error).message}`));
    }
  }, renewMs);
  timer.unref();
  return {
    token,
    lost: lost.signal,
    release: async () => {
      clearInterval(timer);
      await redis
        .eval(RELEASE, 1, key, token)
        .catch((error) => log.warn({ err: error, key }, 'releasing the run lock failed'));
    },
  };
}

/** Who holds the run's lock now (the token), if anyone; `lane`: a lane's own lock (lanes mode). */
export async function runLockHolder(
  redis: Redis,
  prefix: string,
  runId: string,
  lane?: number | null,
): Promise<string | null> {
  const base = runKeys(prefix, runId).lock;
  return redis.get(lane ? `${base}:lane-${lane}` : base);
}
