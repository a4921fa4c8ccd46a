/** Provider failures inside a session: one retry helper, overloads retried, the rest ended with their outcome. */
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../../agent/loop.js';
import type { ProviderFailure } from '../../../agent/messages.js';
import { createFakeProvider } from '../../../testkit/fake-provider.js';
import { eventsOf, loopOptions, recordingTool } from './helpers.js';

const overloaded = (retryAfterMs?: number): { failure: ProviderFailure } => ({
  failure: { kind: 'overloaded', status: 529, message: 'anthropic:m: 529 Overloaded', retryAfterMs },
});

describe('retries inside the session', () => {
  it('retries an overload, waiting at least its retry-after, and keeps every attempt as an event', async () => {
    const provider = createFakeProvider([overloaded(7_000), overloaded(), { text: 'fine' }]);
    const delays: number[] = [];
    const options = loopOptions(provider, [], {
      sleep: async (ms) => {
        delays.push(ms);
      },
      retry: { maxRetries: 3, baseDelayMs: 1_000, random: () => 0 },
    });
    const result = await runAgent(options);
    expect(result).toMatchObject({ outcome: 'completed', lastText: 'fine' });
    // retry-after 7 s wins over the 500 ms back-off; then 1 s (2 s halved by zero jitter).
    expect(delays).toEqual([7_000, 1_000]);
    expect(
      eventsOf(options.events, 'model.error').map((event) => [event.kind, event.attempt, event.willRetry]),
    ).toEqual([
      ['overloaded', 1, true],
      ['overloaded', 2, true],
    ]);
  });

  it('ends rate_limited (the run pauses) when the overload outlasts the retries', async () => {
    const provider = createFakeProvider(() => overloaded());
    const result = await runAgent(loopOptions(provider, [], { retry: { maxRetries: 2 } }));
    expect(result.outcome).toBe('rate_limited');
    expect(provider.requests).toHaveLength(3);
  });

  it('does not wait longer than maxDelayMs: a long retry-after ends the session for the run to pause', async () => {
    const provider = createFakeProvider([overloaded(120_000), { text: 'never' }]);
    const delays: number[] = [];
    const result = await runAgent(
      loopOptions(provider, [], {
        sleep: async (ms) => {
          delays.push(ms);
        },
        retry: { maxDelayMs: 60_000 },
      }),
    );
    expect(result.outcome).toBe('rate_limited');
    expect(result.failure?.retryAfterMs).toBe(120_000);
    expect(delays).toEqual([]);
  });

  it.each([
    ['rate_limited', 'rate_limited'],
    ['quota_exhausted', 'provider_error'],
    ['auth', 'provider_error'],
    ['model_not_found', 'provider_error'],
    ['context_overflow', 'context_overflow'],
  ] as const)('a %s failure is not retried and ends the session %s', async (kind, outcome) => {
    const provider = createFakeProvider([
      { failure: { kind, message: `${kind} happened` } },
      { text: 'never' },
    ]);
    const result = await runAgent(loopOptions(provider, []));
    expect(result.outcome).toBe(outcome);
    expect(result.failure?.kind).toBe(kind);
    expect(provider.requests).toHaveLength(1);
  });
});

describe('a model without images', () => {
  it('gets the request again without images when it rejects them, and no images after', async () => {
    const shot = recordingTool(
      'screenshot',
      () =>
        ({
          content: 'saved',
          images: [{ mediaType: 'image/png', base64: 'iVBORw0KGgo=' }],
        }) as never,
    );
    let rejected = false;
    const provider = createFakeProvider((request, index) => {
      const hasImages = JSON.stringify(request.messages).includes('iVBORw0KGgo=');
      if (index === 0) return { toolCalls: [{ name: 'screenshot' }] };
      if (request.vision !== false && hasImages && !rejected) {
        rejected = true;
        return {
          failure: {
            kind: 'images_unsupported',
            status: 400,
            message: 'this model does not support image input',
          },
        };
      }
      return index < 3 ? { toolCalls: [{ name: 'screenshot' }] } : { text: 'done' };
    });
    const options = loopOptions(provider, [shot.tool]);
    const result = await runAgent(options);
    expect(result.outcome).toBe('completed');
    expect(provider.requests.slice(1).map((request) => request.vision)).toEqual([true, false, false]);
    expect(eventsOf(options.events, 'model.images_dropped')).toHaveLength(1);
    expect(eventsOf(options.events, 'model.error')).toHaveLength(0);
  });
});
