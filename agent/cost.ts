import type { Usage } from './messages.js';
import { DEFAULT_PRICES, lookupModel, type ModelPrice, type PriceTable } from './models.js';

export { DEFAULT_PRICES, ModelPrice, PriceTable } from './models.js';

/**
 * Cost of `usage` at `price` in USD. `inputTokens` counts uncached input only; cached reads and writes are
 * priced separately (defaulting to Anthropic's ratios, read 0.1x and write 1.25x input, when not given).
 */
export function costAtPrice(price: ModelPrice, usage: Usage): number {
  const cacheRead = price.cacheReadPerMTok ?? price.inputPerMTok * 0.1;
  const cacheWrite = price.cacheWritePerMTok ?? price.inputPerMTok * 1.25;
  const dollars =
    usage.inputTokens * price.inputPerMTok +
    usage.outputTokens * price.outputPerMTok +
    usage.cacheReadTokens * cacheRead +
    usage.cacheWriteTokens * cacheWrite;
  return dollars / 1_000_000;
}

/** The price of a model id in `prices` (exact id, or a dated version of an entry), or null when unknown. */
export function priceOf(modelId: string, prices: PriceTable = DEFAULT_PRICES): ModelPrice | null {
  return lookupModel(modelId, prices) ?? null;
}

/** Cost of `usage` in USD, or `null` when the model has no known price (unknown is not zero). */
export function costOf(modelId: string, usage: Usage, prices: PriceTable = DEFAULT_PRICES): number | null {
  const price = priceOf(modelId, prices);
  return price ? costAtPrice(price, usage) : null;
}

/**
 * The price a session of `provider` is charged at: from `prices` when given (the run's table), else from
 * the provider's settings, else from the defaults; null when unknown.
 */
export function priceForProvider(
  provider: { id: string; settings?: { price: ModelPrice | null } | undefined },
  prices?: PriceTable,
): ModelPrice | null {
  if (prices) return priceOf(provider.id, prices);
  if (provider.settings) return provider.settings.price;
  return priceOf(provider.id);
}
