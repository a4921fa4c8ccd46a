/**
 * The one retry helper for every outbound call the harness makes (model requests, preflight probes,
 * webhooks) and the back-off of rate-limited runs: exponential back-off with jitter, the server's
 * `retry-after` / `retry-after-ms` honoured (never retried sooner than it asks), every attempt's error kept.
 *
 * Attempts report failures as data rather than throwing, because the callers do: providers return typed
 * failures, webhooks a status line. The caller decides what is retryable; this module decides when.
 */

/** How often and how patiently to retry. */
export interface RetryPolicy {
  /** Attempts after the first one. */
  maxRetries: number;
  /** Delay before the first retry, doubled for each further one (before jitter). */
  baseDelayMs: number;
  /**
   * Longest wait between two attempts. A server asking for a longer `retry-after` is not retried here:
   * the caller gets the failure and decides (a rate-limited run pauses instead).
   */
  maxDelayMs: number;
}

/** The policy of model requests inside a session: 2 retries, 1 s then 2 s (± jitter), at most 60 s apart. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 1_000, maxDelayMs: 60_000 };

/** What one attempt came to: a value, or an error with whether trying again may help. */
export type AttemptResult<T, E> =
  | { ok: true; value: T }
  | { ok: false; error: E; retryable: boolean; retryAfterMs?: number | undefined };

/** The outcome of all attempts; `errors` holds every failed attempt's error in order. */
export type RetryOutcome<T, E> =
  | { ok: true; value: T; errors: E[]; attempts: number }
  | { ok: false; error: E; errors: E[]; attempts: number };

/** One failed attempt, as reported to `onFailure`. */
export interface FailedAttempt<E> {
  /** 1 for the first attempt. */
  attempt: number;
  error: E;
  /** Whether another attempt follows. */
  willRetry: boolean;
  /** The wait before it (0 when none follows). */
  delayMs: number;
}

/** Options of {@link withRetries}; everything but the policy is injectable for tests. */
export interface WithRetriesOptions<E> {
  policy?: Partial<RetryPolicy>;
  /** Stops waiting and retrying when aborted. */
  signal?: AbortSignal;
  /** Waits `ms` (default: a timer that wakes early on abort). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) (default Math.random): the jitter. */
  random?: () => number;
  /** Told about every failed attempt before the wait (events, logs). */
  onFailure?: (failure: FailedAttempt<E>) => void;
}

/**
 * The wait before retry number `retry` (0 for the first): `base × 2^retry` capped at `maxDelayMs`, with
 * "equal jitter" (half fixed, half random, so concurrent callers spread out but never retry at once),
 * and never shorter than the server's `retry-after`.
 */
export function backoffDelayMs(
  retry: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry));
  const jittered = exponential / 2 + (random() * exponential) / 2;
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}

/**
 * Runs `attempt` until it succeeds, fails for good, the retries are spent, the server asks for a longer
 * wait than the policy allows, or `signal` aborts. Never throws on a failed attempt (a throwing `attempt`
 * propagates: that is a bug, not a failure).
 */
export async function withRetries<T, E>(
  attempt: (attemptNumber: number) => Promise<AttemptResult<T, E>>,
  options: WithRetriesOptions<E> = {},
): Promise<RetryOutcome<T, E>> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const sleep = options.sleep ?? abortableSleep;
  const errors: E[] = [];
  for (let number = 1; ; number++) {
    const result = await attempt(number);
    if (result.ok) return { ok: true, value: result.value, errors, attempts: number };
    errors.push(result.error);
    const delayMs = backoffDelayMs(number - 1, policy, result.retryAfterMs, options.random);
    const willRetry =
      result.retryable &&
      number <= policy.maxRetries &&
      (result.retryAfterMs ?? 0) <= policy.maxDelayMs &&
      !options.signal?.aborted;
    options.onFailure?.({
      attempt: number,
      error: result.error,
      willRetry,
      delayMs: willRetry ? delayMs : 0,
    });
    if (!willRetry) return { ok: false, error: result.error, errors, attempts: number };
    await sleep(delayMs, options.signal);
    if (options.signal?.aborted) return { ok: false, error: result.error, errors, attempts: number };
  }
}

/** Waits `ms`, waking early (without error) when `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Headers as both SDKs and fetch expose them. */
interface HeaderSource {
  get(name: string): string | null;
}

/** Milliseconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date), when present. */
export function retryAfterMsFromHeaders(
  headers: HeaderSource | undefined | null,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const millis = headers.get('retry-after-ms');
  if (millis !== null && millis.trim() !== '' && Number.isFinite(Number(millis))) {
    return Math.max(0, Math.round(Number(millis)));
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Math.round(Number(after) * 1000));
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
