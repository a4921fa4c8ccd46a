import { z } from 'zod';
import type { Usage } from './messages.js';

/** Price of one model in USD per million tokens. */
export const ModelPrice = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  cacheReadPerMTok: z.number().nonnegative().optional(),
  cacheWritePerMTok: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

/** Prices keyed by model id (`provider:model`). */
export const PriceTable = z.record(z.string(), ModelPrice);
export type PriceTable = z.infer<typeof PriceTable>;

/**
 * Defaults for well-known models (USD per million tokens); configuration overrides or extends them.
 * Cache prices default to Anthropic's ratios (read 0.1x, write 1.25x input) when a model omits them.
 */
export const DEFAULT_PRICES: PriceTable = {
  'anthropic:claude-sonnet-4-5': {
    inputPerMTok: 3,
    outputPerMTok: 15,
    cacheReadPerMTok: 0.3,
    cacheWritePerMTok: 3.75,
  },
  'anthropic:claude-opus-4-5': {
    inputPerMTok: 5,
    outputPerMTok: 25,
    cacheReadPerMTok: 0.5,
    cacheWritePerMTok: 6.25,
  },
  'anthropic:claude-haiku-4-5': {
    inputPerMTok: 1,
    outputPerMTok: 5,
    cacheReadPerMTok: 0.1,
    cacheWritePerMTok: 1.25,
  },
  'openai:gpt-5.1': {
    inputPerMTok: 1.25,
    outputPerMTok: 10,
    cacheReadPerMTok: 0.125,
    cacheWritePerMTok: 1.25,
  },
  'openai:gpt-5-mini': {
    inputPerMTok: 0.25,
    outputPerMTok: 2,
    cacheReadPerMTok: 0.025,
    cacheWritePerMTok: 0.25,
  },
};

/**
 * Cost of `usage` in USD, or `null` when the model has no known price (unknown is not zero).
 * `inputTokens` counts uncached input only; cached reads and writes are priced separately.
 */
export function costOf(modelId: string, usage: Usage, prices: PriceTable = DEFAULT_PRICES): number | null {
  const price = prices[modelId];
  if (!price) return null;
  const cacheRead = price.cacheReadPerMTok ?? price.inputPerMTok * 0.1;
  const cacheWrite = price.cacheWritePerMTok ?? price.inputPerMTok * 1.25;
  const dollars =
    usage.inputTokens * price.inputPerMTok +
    usage.outputTokens * price.outputPerMTok +
    usage.cacheReadTokens * cacheRead +
    usage.cacheWriteTokens * cacheWrite;
  return dollars / 1_000_000;
}
