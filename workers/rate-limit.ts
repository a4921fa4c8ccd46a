import { z } from 'zod';
import { moduleLogger } from '../core/log.js';
import { changeStatus } from '../orchestrator/advance.js';
import { runKeys } from '../orchestrator/keys.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import type { RunRecord } from '../orchestrator/run-state.js';
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

/** The pause after the n-th rate-limited session in a row: the provider's retry-after, doubled each time. */
export function rateLimitBackoffMs(retryAfterMs: number | undefined, streak: number): number {
  const base = Math.max(retryAfterMs ?? 30_000, RATE_LIMIT_MIN_MS);
  return Math.min(base * 2 ** Math.max(0, streak - 1), RATE_LIMIT_MAX_MS);
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
  const current = await orchestrator.store.getRun(run.id);
  await changeStatus(orchestrator, current, 'paused', {
    reason: 'rate-limited',
    detail: `provider rate limit (${streak} in a row); resumes at ${resumeAt}`,
  });
  log.warn({ runId: run.id, backoff, streak }, 'rate limited: pausing the run and the queue');
  await deps.rateLimitQueue(backoff);
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
