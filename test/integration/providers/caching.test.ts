import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../agent/messages.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { providerFor, requestOf, userText } from './helpers.js';

let server: ModelServer;

beforeEach(async () => {
  server = await startModelServer({ policy: () => ({ text: 'Noted.' }) });
});
afterEach(async () => {
  await server.close();
});

const LONG_TASK = `Implement the feature.\n${'Context line about the project. '.repeat(200)}`;

function grownConversation(): Message[] {
  return [
    userText(LONG_TASK),
    { role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] },
    userText('Now continue with the next step.'),
  ];
}

describe('anthropic prompt caching', () => {
  it.each([true, false])('marks the stable prefix and the newest block (stream=%s)', async (stream) => {
    const provider = providerFor('anthropic', server, { stream });
    const result = await provider.complete(requestOf(grownConversation()));
    expect(result.ok).toBe(true);
    const body = JSON.parse(server.requests[0]!.body);
    expect(body.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(body.tools[0].cache_control).toBeUndefined();
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a careful engineer.', cache_control: { type: 'ephemeral' } },
    ]);
    const lastMessage = body.messages.at(-1);
    expect(lastMessage.content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    // Only the newest block carries the moving marker (the API allows four breakpoints in all).
    const marked = body.messages.flatMap((message: { content: Array<{ cache_control?: unknown }> }) =>
      message.content.filter((block) => block.cache_control),
    );
    expect(marked).toHaveLength(1);
  });

  it('reads the cache back on the next request of the same conversation', async () => {
    const provider = providerFor('anthropic', server);
    const first = await provider.complete(requestOf([userText(LONG_TASK)]));
    if (!first.ok) throw new Error(first.failure.message);
    expect(first.response.usage.cacheReadTokens).toBe(0);
    expect(first.response.usage.cacheWriteTokens).toBeGreaterThan(1000);

    const second = await provider.complete(requestOf(grownConversation()));
    if (!second.ok) throw new Error(second.failure.message);
    const usage = second.response.usage;
    // Everything of the first prompt is read from the cache; only the new turns are written.
    expect(usage.cacheReadTokens).toBeGreaterThanOrEqual(first.response.usage.cacheWriteTokens - 2);
    expect(usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(usage.cacheWriteTokens).toBeLessThan(usage.cacheReadTokens / 10);
    expect(usage.inputTokens).toBe(0);
  });

  it('reports no cache hit when the system prompt changed', async () => {
    const provider = providerFor('anthropic', server);
    await provider.complete(requestOf([userText(LONG_TASK)]));
    const second = await provider.complete(requestOf(grownConversation(), { system: 'A different prompt.' }));
    if (!second.ok) throw new Error(second.failure.message);
    // Tools come before the system prompt, so only they are shared.
    expect(second.response.usage.cacheReadTokens).toBeLessThan(100);
    expect(second.response.usage.cacheWriteTokens).toBeGreaterThan(1000);
  });
});

describe('openai automatic caching', () => {
  it.each([true, false])('reports cached prompt tokens as cache reads (stream=%s)', async (stream) => {
    const provider = providerFor('openai', server, { stream });
    const first = await provider.complete(requestOf([userText(LONG_TASK)]));
    if (!first.ok) throw new Error(first.failure.message);
    expect(first.response.usage.cacheReadTokens).toBe(0);
    const promptTokens = first.response.usage.inputTokens;
    expect(promptTokens).toBeGreaterThan(1000);

    const second = await provider.complete(requestOf(grownConversation()));
    if (!second.ok) throw new Error(second.failure.message);
    const usage = second.response.usage;
    expect(usage.cacheReadTokens).toBeGreaterThan(promptTokens - 5);
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.inputTokens).toBeLessThan(50);
    expect(usage.cacheWriteTokens).toBe(0);
  });
});
