import { z } from 'zod';
import { closestMatch } from '../core/suggest.js';

/**
 * Per-model settings: what the harness must know about a model to use it well (its context window, how
 * much it may write per reply, whether it reads images, streaming, reasoning, price). Defaults for current
 * Anthropic and OpenAI models; any other model gets conservative defaults per provider, and `modelSettings`
 * in the run config overrides any field for any model id (see docs/models.md).
 */

/** Price of one model in USD per million tokens. */
export const ModelPrice = z.strictObject({
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
 * Reasoning: `effort` is sent as OpenAI's `reasoning_effort`; `budgetTokens` turns on Anthropic's extended
 * thinking with that budget (it must stay below the reply's max output tokens).
 */
export const ReasoningSettings = z.strictObject({
  effort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
  budgetTokens: z.number().int().min(1024).optional(),
});
export type ReasoningSettings = z.infer<typeof ReasoningSettings>;

/** Everything the harness knows about one model. */
export const ModelSettings = z.strictObject({
  /** Tokens the model can hold: prompt plus reply. */
  contextWindow: z.number().int().min(1024),
  /** Tokens one reply may have (the request's max_tokens, lowered when the window is nearly full). */
  maxOutputTokens: z.number().int().min(16),
  /** Whether the model reads images; without it screenshots reach it as a text note. */
  vision: z.boolean(),
  /** Stream replies (some proxies mangle streams: turn it off for them). */
  streaming: z.boolean(),
  reasoning: ReasoningSettings.optional(),
  /** USD per million tokens; null = unknown (never read as zero). */
  price: ModelPrice.nullable(),
  /**
   * The day the provider retires the model (`YYYY-MM-DD`, UTC): requests fail from then on. Runs are warned
   * before it and refused after it (agent/model-retirement.ts). Absent: no retirement announced.
   */
  retiresOn: z.iso.date().optional(),
  /** The model to move to (`provider:model`), named in the warning and the refusal. */
  replacement: z
    .string()
    .regex(/^[a-z][a-z0-9-]*:\S+$/, 'a model id: provider:model')
    .optional(),
});
export type ModelSettings = z.infer<typeof ModelSettings>;

/** What a user may write for one model in `modelSettings`: any subset of the fields. */
export const ModelSettingsOverride = ModelSettings.partial();
export type ModelSettingsOverride = z.infer<typeof ModelSettingsOverride>;

/** `modelSettings` of a run config: overrides keyed by model id (`provider:model`; dated ids match by prefix). */
export const ModelSettingsTable = z.record(z.string(), ModelSettingsOverride);
export type ModelSettingsTable = z.infer<typeof ModelSettingsTable>;

/** Settings resolved for one model id, with where they came from. */
export interface ResolvedModelSettings extends ModelSettings {
  /** The id asked for. */
  modelId: string;
  /** True when the defaults came from the table of known models (not the per-provider fallback). */
  known: boolean;
}

const anthropicPrice = (input: number, output: number): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: input * 0.1,
  cacheWritePerMTok: input * 1.25,
});

// OpenAI bills cache writes as plain input and cached reads at a discount given per model.
const openAIPrice = (input: number, output: number, cachedInput: number): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: cachedInput,
  cacheWritePerMTok: input,
});

/** When a provider retires a model, and what to use instead. */
type Retirement = Pick<ModelSettings, 'retiresOn' | 'replacement'>;

// Claude models with a 1M window get 200,000 too: sessions reset context rather than grow it, and a prompt past
// 200,000 tokens costs more per request (raise `contextWindow` in modelSettings to use more).
const claude = (maxOutputTokens: number, price: ModelPrice, retirement: Retirement = {}): ModelSettings => ({
  contextWindow: 200_000,
  maxOutputTokens,
  vision: true,
  streaming: true,
  price,
  ...retirement,
});

/** The current Claude model of each tier: what a retired one is replaced by. */
const CURRENT_CLAUDE = {
  opus: 'anthropic:claude-opus-5-5',
  sonnet: 'anthropic:claude-sonnet-5-5',
  haiku: 'anthropic:claude-haiku-4-5',
} as const;

const retires = (retiresOn: string, tier: keyof typeof CURRENT_CLAUDE): Retirement => ({
  retiresOn,
  replacement: CURRENT_CLAUDE[tier],
});

const gpt = (contextWindow: number, maxOutputTokens: number, price: ModelPrice): ModelSettings => ({
  contextWindow,
  maxOutputTokens,
  vision: true,
  streaming: true,
  price,
});

/**
 * Known models (list prices in USD per million tokens as published by the providers). Dated ids
 * (`claude-sonnet-4-5-20250929`, `gpt-5-2025-08-07`) and `-latest` aliases match their entry. Retirement dates
 * are Anthropic's (the deprecation table of the installed @anthropic-ai/sdk, `internal/data/deprecated-models`,
 * and Anthropic's model deprecations page for the models already retired); see docs/models.md.
 */
export const KNOWN_MODELS: Readonly<Record<string, ModelSettings>> = {
  'anthropic:claude-opus-5-5': claude(128_000, anthropicPrice(5, 25)),
  'anthropic:claude-sonnet-5-5': claude(64_000, anthropicPrice(3, 15)),
  'anthropic:claude-sonnet-5': claude(64_000, anthropicPrice(3, 15)),
  'anthropic:claude-opus-4-8': claude(128_000, anthropicPrice(5, 25)),
  'anthropic:claude-opus-4-7': claude(128_000, anthropicPrice(5, 25)),
  'anthropic:claude-opus-4-6': claude(128_000, anthropicPrice(5, 25)),
  'anthropic:claude-sonnet-4-6': claude(64_000, anthropicPrice(3, 15)),
  'anthropic:claude-opus-4-5': claude(64_000, anthropicPrice(5, 25), retires('2027-01-22', 'opus')),
  'anthropic:claude-sonnet-4-5': claude(64_000, anthropicPrice(3, 15), retires('2026-11-30', 'sonnet')),
  'anthropic:claude-haiku-4-5': claude(64_000, anthropicPrice(1, 5)),
  'anthropic:claude-opus-4-1': claude(32_000, anthropicPrice(15, 75), retires('2026-08-05', 'opus')),
  'anthropic:claude-opus-4': claude(32_000, anthropicPrice(15, 75), retires('2026-06-15', 'opus')),
  'anthropic:claude-sonnet-4': claude(64_000, anthropicPrice(3, 15), retires('2026-06-15', 'sonnet')),
  'anthropic:claude-3-7-sonnet': claude(64_000, anthropicPrice(3, 15), retires('2026-02-19', 'sonnet')),
  'anthropic:claude-3-5-haiku': claude(8_192, anthropicPrice(0.8, 4), retires('2026-02-19', 'haiku')),
  'openai:gpt-5.1': gpt(400_000, 128_000, openAIPrice(1.25, 10, 0.125)),
  'openai:gpt-5': gpt(400_000, 128_000, openAIPrice(1.25, 10, 0.125)),
  'openai:gpt-5-mini': gpt(400_000, 128_000, openAIPrice(0.25, 2, 0.025)),
  'openai:gpt-5-nano': gpt(400_000, 128_000, openAIPrice(0.05, 0.4, 0.005)),
  'openai:gpt-4.1': gpt(1_047_576, 32_768, openAIPrice(2, 8, 0.5)),
  'openai:gpt-4.1-mini': gpt(1_047_576, 32_768, openAIPrice(0.4, 1.6, 0.1)),
  'openai:gpt-4o': gpt(128_000, 16_384, openAIPrice(2.5, 10, 1.25)),
  'openai:gpt-4o-mini': gpt(128_000, 16_384, openAIPrice(0.15, 0.6, 0.075)),
  'openai:o3': gpt(200_000, 100_000, openAIPrice(2, 8, 0.5)),
  'openai:o4-mini': gpt(200_000, 100_000, openAIPrice(1.1, 4.4, 0.275)),
};

/** Prices of the known models: the defaults `prices` in a run config is merged over. */
export const DEFAULT_PRICES: PriceTable = Object.fromEntries(
  Object.entries(KNOWN_MODELS).flatMap(([id, settings]) => (settings.price ? [[id, settings.price]] : [])),
);

/**
 * Settings of a model nobody described, by provider: the hosted APIs' usual sizes, and for
 * OpenAI-compatible servers (Ollama, vLLM, LM Studio…) a small window, a short reply and no images —
 * safe guesses, to be raised in `modelSettings` for a bigger model.
 */
const FALLBACKS: Record<string, ModelSettings> = {
  anthropic: { contextWindow: 200_000, maxOutputTokens: 8_192, vision: true, streaming: true, price: null },
  openai: { contextWindow: 128_000, maxOutputTokens: 8_192, vision: true, streaming: true, price: null },
  'openai-compatible': {
    contextWindow: 32_768,
    maxOutputTokens: 4_096,
    vision: false,
    streaming: true,
    price: null,
  },
};

/** A date stamp or `-latest` after a base id: `-20250929`, `-2025-08-07`, `-latest`. */
const DATED_SUFFIX = /^-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The key of `table` that names `modelId`: the id itself, else the longest key of which the id is a dated
 * version. A different model that merely shares a prefix (`gpt-5-pro` vs `gpt-5`) does not match.
 */
export function matchModelKey(modelId: string, keys: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const key of keys) {
    if (key === modelId) return key;
    if (modelId.startsWith(key) && DATED_SUFFIX.test(modelId.slice(key.length))) {
      if (!best || key.length > best.length) best = key;
    }
  }
  return best;
}

/** The entry of `table` for `modelId` (exact or dated), if any. */
export function lookupModel<T>(modelId: string, table: Readonly<Record<string, T>>): T | undefined {
  const key = matchModelKey(modelId, Object.keys(table));
  return key === undefined ? undefined : table[key];
}

/**
 * The known model a misspelt id most likely meant: the closest name of the same provider (any provider for a bare
 * name), compared without the provider so a shared `anthropic:claude-` prefix does not make every id look close.
 */
export function closestKnownModel(modelId: string): string | undefined {
  const colon = modelId.indexOf(':');
  const provider = colon < 0 ? undefined : modelId.slice(0, colon);
  const byName = new Map<string, string>();
  for (const id of Object.keys(KNOWN_MODELS)) {
    if (provider === undefined || id.startsWith(`${provider}:`))
      byName.set(id.slice(id.indexOf(':') + 1), id);
  }
  const name = closestMatch(modelId.slice(colon + 1), byName.keys());
  return name === undefined ? undefined : byName.get(name);
}

/** Options of {@link resolveModelSettings}. */
export interface ResolveOptions {
  /** `modelSettings` of the run config. */
  overrides?: ModelSettingsTable | undefined;
  /** `prices` of the run config (already merged over the defaults). */
  prices?: PriceTable | undefined;
}

/**
 * A model's settings: the user's overrides, then the run's price table, then the known models, then the
 * provider's fallback. The price is null unless one of them gives one.
 */
export function resolveModelSettings(modelId: string, options: ResolveOptions = {}): ResolvedModelSettings {
  const provider = modelId.slice(0, Math.max(0, modelId.indexOf(':')));
  const known = lookupModel(modelId, KNOWN_MODELS);
  const base = known ?? FALLBACKS[provider] ?? (FALLBACKS['openai-compatible'] as ModelSettings);
  const override = options.overrides ? lookupModel(modelId, options.overrides) : undefined;
  const price =
    override?.price !== undefined
      ? override.price
      : ((options.prices ? lookupModel(modelId, options.prices) : undefined) ?? base.price);
  const settings: ResolvedModelSettings = { ...base, ...override, price, modelId, known: Boolean(known) };
  // A reply can never be larger than the window it has to fit in.
  settings.maxOutputTokens = Math.min(settings.maxOutputTokens, Math.floor(settings.contextWindow / 2));
  return settings;
}
