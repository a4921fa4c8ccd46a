import { describe, expect, it } from 'vitest';
import { costOf } from '../../agent/cost.js';
import { addUsage, emptyUsage } from '../../agent/messages.js';

describe('costOf', () => {
  it('prices input, output and cache tokens per million', () => {
    const usage = {
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      cacheReadTokens: 2_000_000,
      cacheWriteTokens: 0,
    };
    const prices = { 'x:m': { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3 } };
    expect(costOf('x:m', usage, prices)).toBeCloseTo(3 + 1.5 + 0.6, 10);
  });

  it('reports an unknown price as null, not zero', () => {
    expect(costOf('nobody:knows', { ...emptyUsage(), inputTokens: 10 }, {})).toBeNull();
  });

  it('derives cache prices from the input price when they are not configured', () => {
    const usage = { ...emptyUsage(), cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000 };
    expect(costOf('x:m', usage, { 'x:m': { inputPerMTok: 4, outputPerMTok: 0 } })).toBeCloseTo(0.4 + 5, 10);
  });

  it('adds usage records field by field', () => {
    const a = { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 };
    expect(addUsage(a, a)).toEqual({
      inputTokens: 2,
      outputTokens: 4,
      cacheReadTokens: 6,
      cacheWriteTokens: 8,
    });
  });
});
