/**
 * Live contract tests: what the real Anthropic and OpenAI APIs say, pinned. Skipped without keys (they never
 * run in CI or `npm test` on a machine without them); each costs a few cents at most. Listed in
 * docs/models.md. Run: `ANTHROPIC_API_KEY=… OPENAI_API_KEY=… npx vitest run test/live --maxWorkers=1`.
 *
 * Optional: NIGHTSHIFT_LIVE_ANTHROPIC_MODEL / NIGHTSHIFT_LIVE_OPENAI_MODEL (defaults: claude-haiku-4-5,
 * gpt-5-mini); OPENAI_NO_QUOTA_API_KEY (a key of an account without credit: pins the 429 insufficient_quota);
 * NIGHTSHIFT_LIVE_BURST=1 (sends tiny requests in parallel until the API answers 429: pins the rate limit).
 */
import { describe, expect, it } from 'vitest';
import type { ModelProvider, ModelRequest, ProviderResult } from '../../agent/messages.js';
import { resolveModelSettings } from '../../agent/models.js';
import { createProvider } from '../../agent/providers/index.js';

const env = process.env;
const MODELS = {
  anthropic: `anthropic:${env.NIGHTSHIFT_LIVE_ANTHROPIC_MODEL ?? 'claude-haiku-4-5'}`,
  openai: `openai:${env.NIGHTSHIFT_LIVE_OPENAI_MODEL ?? 'gpt-5-mini'}`,
} as const;
const KEYS = { anthropic: env.ANTHROPIC_API_KEY, openai: env.OPENAI_API_KEY } as const;

function live(flavour: keyof typeof MODELS, apiKey?: string): ModelProvider {
  const id = MODELS[flavour];
  return createProvider(id, {
    ...(apiKey ? { apiKey } : {}),
    timeoutMs: 120_000,
    settings: resolveModelSettings(id),
  });
}

const writeTool = {
  name: 'write',
  description: 'Write a file.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
  },
};

function ask(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: '',
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    maxTokens: 64,
    ...extra,
  };
}

function failureOf(result: ProviderResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.response.content)}`);
  return result.failure;
}

describe.each(['anthropic', 'openai'] as const)('live %s', (flavour) => {
  const skip = !KEYS[flavour];

  it.skipIf(skip)('answers a tiny request (what preflight sends)', async () => {
    const result = await live(flavour).complete(ask('Reply with the word OK.', { maxTokens: 16 }));
    expect(result.ok).toBe(true);
  });

  it.skipIf(skip)('stops at max_tokens mid tool call with a stop reason the loop reads', async () => {
    const result = await live(flavour).complete(
      ask(
        'Call the write tool once to write poem.txt containing a 400-line poem. Do not write anything else.',
        {
          tools: [writeTool],
          maxTokens: flavour === 'openai' ? 400 : 120,
        },
      ),
    );
    if (!result.ok) throw new Error(result.failure.message);
    expect(result.response.stopReason).toBe('max_tokens');
  });

  it.skipIf(skip)('refuses a prompt larger than the window as context_overflow', async () => {
    const window = resolveModelSettings(MODELS[flavour]).contextWindow;
    const huge = 'lorem ipsum dolor sit amet '.repeat(Math.ceil((window * 1.3) / 5));
    const failure = failureOf(await live(flavour).complete(ask(huge)));
    expect(failure.kind).toBe('context_overflow');
    expect(failure.status).toBe(400);
  });

  it.skipIf(skip)('answers a bad key with 401, classified auth naming the variable', async () => {
    const failure = failureOf(await live(flavour, 'sk-invalid-key-for-contract-test').complete(ask('Hi')));
    expect(failure).toMatchObject({ kind: 'auth', status: 401 });
    expect(failure.message).toMatch(flavour === 'anthropic' ? /ANTHROPIC_API_KEY/ : /OPENAI_API_KEY/);
  });

  it.skipIf(skip)('answers an unknown model with 404, classified model_not_found', async () => {
    const provider = createProvider(`${flavour}:no-such-model-nightshift`, { timeoutMs: 60_000 });
    const failure = failureOf(await provider.complete(ask('Hi')));
    expect(failure).toMatchObject({ kind: 'model_not_found', status: 404 });
  });

  it.skipIf(skip || !env.NIGHTSHIFT_LIVE_BURST)(
    'rate limits a burst with 429 and a retry-after, classified rate_limited',
    async () => {
      const provider = live(flavour);
      for (let round = 0; round < 10; round++) {
        const results = await Promise.all(
          Array.from({ length: 50 }, () => provider.complete(ask('Reply OK.', { maxTokens: 4 }))),
        );
        const limited = results.find((result) => !result.ok && result.failure.kind === 'rate_limited');
        if (limited && !limited.ok) {
          expect(limited.failure.status).toBe(429);
          expect(limited.failure.retryAfterMs).toBeGreaterThan(0);
          return;
        }
      }
      throw new Error('no 429 after 500 requests: raise the burst or use a lower-tier key');
    },
    600_000,
  );
});

describe('live openai quota', () => {
  it.skipIf(!env.OPENAI_NO_QUOTA_API_KEY)(
    'answers an account without credit with 429 insufficient_quota, classified quota_exhausted (not a rate limit)',
    async () => {
      const failure = failureOf(await live('openai', env.OPENAI_NO_QUOTA_API_KEY).complete(ask('Hi')));
      expect(failure).toMatchObject({ kind: 'quota_exhausted', status: 429 });
    },
  );
});
