import { z } from 'zod';
import { moduleLogger } from '../core/log.js';
import { backoffDelayMs } from '../core/retry.js';
import { changeStatus } from '../orchestrator/change-status.js';
import { runKeys } from '../orchestrator/keys.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import type { RunRecord } from '../orchestrator/run/index.js';
import type { SessionResult } from '../roles/session-result.js';
import type { SessionWorkerDeps } from './session-processor.js';

const log = moduleLogger('workers/rate-limit');

/** Shortest and longest pause after a rate-limited session. */
export const RATE_LIMIT_MIN_MS = 5_000;
export const RATE_LIMIT_MAX_MS = 15 * 60_000;

/** The back-off state of a rate-limited run, kept beside the run record. */
export const RateLimitState = z.object({ streak: z.number().int().nonnegative(), resumeAt: z.string() });
export type RateLimitState = z.infer<typeof RateLimitState>;

function key(prefix: string, runId: string): string {
  return `${runKeys(prefix, runId).run}:rate-limit`;
}

/** Back-off of a run whose sessions keep being rate-limited: 30 s doubling to 15 minutes (the retry helper's). */
const RUN_BACKOFF = { baseDelayMs: 30_000, maxDelayMs: RATE_LIMIT_MAX_MS };

/**
 * The pause after the n-th rate-limited session in a row: exponential with jitter (so runs limited together
 * do not all come back at once), never shorter than the provider's retry-after nor 5 s, at most 15 minutes.
 */
export function rateLimitBackoffMs(
  retryAfterMs: number | undefined,
  streak: number,
  random: () => number = Math.random,
): number {
  const delay = backoffDelayMs(streak - 1, RUN_BACKOFF, retryAfterMs, random);
  return Math.min(Math.max(delay, RATE_LIMIT_MIN_MS), RATE_LIMIT_MAX_MS);
}

/**
 * A session ended rate-limited: the run pauses (`rate-limited`, with the time it resumes) and the whole
 * session queue rests for the back-off — never a hot loop. The reconciler resumes the run when the time comes.
 */
export async function handleRateLimit(
  deps: SessionWorkerDeps,
  run: RunRecord,
  result: SessionResult,
): Promise<void> {
  const { orchestrator } = deps;
  const previous = await readRateLimit(orchestrator, run.id);
  const streak = (previous?.streak ?? 0) + 1;
  const backoff = rateLimitBackoffMs(result.retryAfterMs, streak);
  const resumeAt = new Date(orchestrator.now().getTime() + backoff).toISOString();
  await orchestrator.redis.set(key(orchestrator.prefix, run.id), JSON.stringify({ streak, resumeAt }));
  log.warn({ runId: run.id, backoff, streak }, 'rate limited: pausing the queue and the run');
  // The queue rests first: whoever sees the run paused (the dashboard, a test) also finds the queue resting.
  await deps.rateLimitQueue(backoff);
  const current = await orchestrator.store.getRun(run.id);
  await changeStatus(orchestrator, current, 'paused', {
    reason: 'rate-limited',
    detail: `provider rate limit (${streak} in a row); resumes at ${resumeAt}`,
  });
}

/** Forgets the back-off after a session that was not rate-limited. */
export async function clearRateLimit(orchestrator: Orchestrator, runId: string): Promise<void> {
  await orchestrator.redis.del(key(orchestrator.prefix, runId));
}

/** The run's back-off state, if it has one. */
export async function readRateLimit(
  orchestrator: Orchestrator,
  runId: string,
): Promise<RateLimitState | undefined> {
  const raw = await orchestrator.redis.get(key(orchestrator.prefix, runId));
  if (!raw) return undefined;
  const parsed = RateLimitState.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : undefined;
}
