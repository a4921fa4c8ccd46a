import { z } from 'zod';

/**
 * How fast a dead worker's session moves to another worker. BullMQ finds a killed worker's job in two
 * stalled checks: the first marks every active job, the second moves a marked job whose lock has expired
 * back to the wait list. So a killed session waits for its job lock to expire (at most `lockDurationMs`
 * after the last renewal) and then for the next stalled check (at most `stalledIntervalMs`), and the run
 * lock, renewed on the same clock, has lapsed by then. See docs/reliability.md for the measured trade-off.
 */
export const FailoverConfig = z
  .strictObject({
    /** BullMQ job lock: how long a job stays "taken" without renewal (also the run lock's TTL). */
    lockDurationMs: z.number().int().min(1_000).default(10_000),
    /** How often a live worker renews its job locks and run locks. */
    lockRenewMs: z.number().int().min(100).default(2_500),
    /** How often (across all workers: one check per interval) BullMQ looks for jobs of dead workers. */
    stalledIntervalMs: z.number().int().min(100).default(4_000),
    /** Deliveries lost to stalls before BullMQ fails the job (the reconciler then plans the run again). */
    maxStalledCount: z.number().int().min(1).default(3),
  })
  .refine((value) => value.lockRenewMs * 2 <= value.lockDurationMs, {
    message: 'lockRenewMs must be at most half of lockDurationMs (a late renewal would look like a death)',
    path: ['lockRenewMs'],
  });
export type FailoverConfig = z.infer<typeof FailoverConfig>;

/** Nightshift's failover defaults (a killed worker's session restarts in about 10 s). */
export const FAILOVER_DEFAULTS: FailoverConfig = FailoverConfig.parse({});

/** BullMQ 6's own defaults (30 s lock renewed every 15 s, a stalled check every 30 s), for comparison. */
export const BULLMQ_FAILOVER_DEFAULTS: FailoverConfig = {
  lockDurationMs: 30_000,
  lockRenewMs: 15_000,
  stalledIntervalMs: 30_000,
  maxStalledCount: 1,
};

/** The BullMQ `Worker` options for these settings. */
export function bullWorkerOptions(settings: FailoverConfig): {
  lockDuration: number;
  lockRenewTime: number;
  stalledInterval: number;
  maxStalledCount: number;
} {
  return {
    lockDuration: settings.lockDurationMs,
    lockRenewTime: settings.lockRenewMs,
    stalledInterval: settings.stalledIntervalMs,
    maxStalledCount: settings.maxStalledCount,
  };
}

/**
 * The run lock's timing on the same clock as the job lock: it lapses no later than the job lock, so the
 * job's next delivery finds it free; a new delivery waits up to one lock lifetime (plus slack) for it.
 */
export function runLockTiming(settings: FailoverConfig): { ttlMs: number; renewMs: number; waitMs: number } {
  return {
    ttlMs: settings.lockDurationMs,
    renewMs: settings.lockRenewMs,
    waitMs: settings.lockDurationMs + 5_000,
  };
}
