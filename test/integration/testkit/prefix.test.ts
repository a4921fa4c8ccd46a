import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../agent/messages.js';
import { prefixStability } from '../../../testkit/prefix.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { FLAVOURS, providerFor, requestOf, userText } from '../providers/helpers.js';

let server: ModelServer;

beforeEach(async () => {
  server = await startModelServer({ policy: () => ({ text: 'ok' }) });
});
afterEach(async () => {
  await server.close();
});

function grow(messages: Message[], turn: number): Message[] {
  return [
    ...messages,
    { role: 'assistant', content: [{ type: 'text', text: `step ${turn}` }] },
    userText(`continue ${turn}`),
  ];
}

describe.each(FLAVOURS)('prefixStability over %s requests', (flavour) => {
  it('is 1 for an append-only conversation, although no raw body is a prefix of the next', async () => {
    const provider = providerFor(flavour, server);
    let messages: Message[] = [userText('Build feature F-001.')];
    for (let turn = 0; turn < 4; turn++) {
      await provider.complete(requestOf(messages));
      messages = grow(messages, turn);
    }
    const report = prefixStability(server.requests);
    expect(report.pairs).toBe(3);
    expect(report.mean).toBe(1);
    expect(report.min).toBe(1);
    const [first, second] = server.requests;
    expect(second!.body.startsWith(first!.body)).toBe(false);
  });

  it('drops when an earlier part of the prompt changes', async () => {
    const provider = providerFor(flavour, server);
    const messages: Message[] = [userText('Build feature F-001.')];
    await provider.complete(requestOf(messages));
    await provider.complete(
      requestOf(grow(messages, 0), { system: 'You are a careful engineer. Time left: 5 min.' }),
    );
    const report = prefixStability(server.requests);
    expect(report.pairs).toBe(1);
    expect(report.mean).toBeGreaterThan(0);
    expect(report.mean).toBeLessThan(0.95);
  });

  it('compares each request with the previous one of the same conversation only', async () => {
    const provider = providerFor(flavour, server);
    let a: Message[] = [userText('Build feature F-001.')];
    let b: Message[] = [userText('Build feature F-002.')];
    for (let turn = 0; turn < 3; turn++) {
      await provider.complete(requestOf(a));
      await provider.complete(requestOf(b));
      a = grow(a, turn);
      b = grow(b, turn);
    }
    const report = prefixStability(server.requests);
    expect(report.pairs).toBe(4);
    expect(report.mean).toBe(1);
    expect(report.shares.map((share) => share.to - share.from)).toEqual([2, 2, 2, 2]);
  });
});

it('reports null without pairs', () => {
  expect(prefixStability([])).toEqual({ pairs: 0, mean: null, min: null, shares: [] });
});
