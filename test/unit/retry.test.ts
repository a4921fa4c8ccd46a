import { describe, expect, it } from 'vitest';
import { backoffDelayMs, retryAfterMsFromHeaders, withRetries } from '../../core/retry.js';

describe('backoffDelayMs', () => {
  const policy = { baseDelayMs: 1_000, maxDelayMs: 8_000 };

  it('doubles, with half of each delay random, up to the cap', () => {
    expect([0, 1, 2, 3, 4].map((retry) => backoffDelayMs(retry, policy, undefined, () => 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 8_000,
    ]);
    expect([0, 1, 2].map((retry) => backoffDelayMs(retry, policy, undefined, () => 0))).toEqual([
      500, 1_000, 2_000,
    ]);
  });

  it('never retries sooner than retry-after', () => {
    expect(backoffDelayMs(0, policy, 5_000, () => 0)).toBe(5_000);
    expect(backoffDelayMs(3, policy, 100, () => 1)).toBe(8_000);
  });
});

describe('withRetries', () => {
  it('retries retryable failures, keeping every error, until one succeeds', async () => {
    const waits: number[] = [];
    let calls = 0;
    const outcome = await withRetries(
      async () => {
        calls++;
        return calls < 3
          ? { ok: false as const, error: `fail ${calls}`, retryable: true }
          : { ok: true as const, value: 'yes' };
      },
      { sleep: async (ms) => void waits.push(ms), random: () => 1 },
    );
    expect(outcome).toEqual({ ok: true, value: 'yes', errors: ['fail 1', 'fail 2'], attempts: 3 });
    expect(waits).toEqual([1_000, 2_000]);
  });

  it('stops at once on a failure that is not retryable, and after maxRetries on one that is', async () => {
    const fatal = await withRetries(
      async () => ({ ok: false as const, error: 'bad key', retryable: false }),
      {
        sleep: async () => undefined,
      },
    );
    expect(fatal).toMatchObject({ ok: false, error: 'bad key', attempts: 1 });
    const reported: boolean[] = [];
    const spent = await withRetries(async () => ({ ok: false as const, error: 'busy', retryable: true }), {
      policy: { maxRetries: 2 },
      sleep: async () => undefined,
      onFailure: (failure) => reported.push(failure.willRetry),
    });
    expect(spent).toMatchObject({ ok: false, errors: ['busy', 'busy', 'busy'], attempts: 3 });
    expect(reported).toEqual([true, true, false]);
  });

  it('gives up instead of waiting longer than maxDelayMs when the server asks for it', async () => {
    const outcome = await withRetries(
      async () => ({
        ok: false as const,
        error: 'come back in 5 minutes',
        retryable: true,
        retryAfterMs: 300_000,
      }),
      { policy: { maxDelayMs: 60_000 }, sleep: async () => expect.unreachable() },
    );
    expect(outcome.attempts).toBe(1);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    const outcome = await withRetries(
      async () => {
        controller.abort();
        return { ok: false as const, error: 'x', retryable: true };
      },
      { signal: controller.signal, sleep: async () => undefined },
    );
    expect(outcome.attempts).toBe(1);
  });
});

describe('retryAfterMsFromHeaders', () => {
  it('reads retry-after-ms first, then retry-after seconds or an HTTP date', () => {
    expect(retryAfterMsFromHeaders(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMsFromHeaders(new Headers({ 'retry-after': '3' }))).toBe(3_000);
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(
      retryAfterMsFromHeaders(new Headers({ 'retry-after': 'Tue, 01 Jan 2030 00:00:10 GMT' }), now),
    ).toBe(10_000);
    expect(retryAfterMsFromHeaders(new Headers())).toBeUndefined();
  });
});
