import { describe, expect, it } from 'vitest';
import { costOf } from '../../../agent/cost.js';
import { emptyUsage } from '../../../agent/messages.js';
import { describeLifecycle, modelLifecycle } from '../../../agent/model-retirement.js';
import { KNOWN_MODELS, matchModelKey, resolveModelSettings } from '../../../agent/models.js';
import { DEFAULT_MODEL } from '../../../orchestrator/config.js';

describe('model settings', () => {
  it('know current Anthropic and OpenAI models', () => {
    expect(resolveModelSettings('anthropic:claude-sonnet-4-5')).toMatchObject({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      vision: true,
      known: true,
      price: { inputPerMTok: 3, outputPerMTok: 15 },
    });
    expect(resolveModelSettings('openai:gpt-5')).toMatchObject({ contextWindow: 400_000, known: true });
    expect(resolveModelSettings('anthropic:claude-opus-4-1').price?.inputPerMTok).toBe(15);
  });

  it('match dated ids and -latest aliases to their entry, and nothing else that shares a prefix', () => {
    const keys = Object.keys(KNOWN_MODELS);
    expect(matchModelKey('anthropic:claude-sonnet-4-5-20250929', keys)).toBe('anthropic:claude-sonnet-4-5');
    expect(matchModelKey('openai:gpt-5-2025-08-07', keys)).toBe('openai:gpt-5');
    expect(matchModelKey('openai:gpt-5-mini-2025-08-07', keys)).toBe('openai:gpt-5-mini');
    expect(matchModelKey('anthropic:claude-3-7-sonnet-latest', keys)).toBe('anthropic:claude-3-7-sonnet');
    expect(matchModelKey('openai:gpt-5-pro', keys)).toBeUndefined();
    expect(matchModelKey('openai:gpt-5.2', keys)).toBeUndefined();
    expect(matchModelKey('anthropic:claude-opus-4-1-20250805', keys)).toBe('anthropic:claude-opus-4-1');
  });

  it('price dated ids, and leave every other model unpriced (never $0)', () => {
    const usage = { ...emptyUsage(), inputTokens: 1_000_000 };
    expect(costOf('anthropic:claude-sonnet-4-5-20250929', usage)).toBeCloseTo(3, 10);
    expect(costOf('openai:gpt-5.2', usage)).toBeNull();
    expect(resolveModelSettings('openai-compatible:llama3.1').price).toBeNull();
  });

  it('fall back per provider: small, text-only and short for a local server', () => {
    expect(resolveModelSettings('openai-compatible:qwen3')).toMatchObject({
      contextWindow: 32_768,
      maxOutputTokens: 4_096,
      vision: false,
      streaming: true,
      known: false,
    });
    expect(resolveModelSettings('anthropic:claude-next')).toMatchObject({
      contextWindow: 200_000,
      maxOutputTokens: 8_192,
    });
  });

  it('take any field from modelSettings, and a price from the run price table', () => {
    const settings = resolveModelSettings('openai-compatible:qwen3', {
      overrides: {
        'openai-compatible:qwen3': { contextWindow: 8_192, vision: true, reasoning: { effort: 'low' } },
      },
      prices: { 'openai-compatible:qwen3': { inputPerMTok: 0.1, outputPerMTok: 0.2 } },
    });
    expect(settings).toMatchObject({
      contextWindow: 8_192,
      // Never more than half the window: the prompt needs room too.
      maxOutputTokens: 4_096,
      vision: true,
      reasoning: { effort: 'low' },
      price: { inputPerMTok: 0.1 },
    });
    const unpriced = resolveModelSettings('anthropic:claude-sonnet-4-5', {
      overrides: { 'anthropic:claude-sonnet-4-5': { price: null } },
    });
    expect(unpriced.price).toBeNull();
  });

  it('give each retiring model a date and a replacement that is itself known and not retiring', () => {
    const retiring = Object.entries(KNOWN_MODELS).filter(([, settings]) => settings.retiresOn);
    expect(retiring.map(([id]) => id)).toEqual(
      expect.arrayContaining([
        'anthropic:claude-sonnet-4-5',
        'anthropic:claude-opus-4-5',
        'anthropic:claude-opus-4',
      ]),
    );
    for (const [id, settings] of retiring) {
      const replacement = KNOWN_MODELS[settings.replacement ?? ''];
      expect(replacement, `${id} names a known replacement`).toBeDefined();
      expect(
        replacement?.retiresOn,
        `${id}'s replacement ${settings.replacement} is not retiring`,
      ).toBeUndefined();
    }
    // The SDK's deprecation table (node_modules/@anthropic-ai/sdk/internal/data/deprecated-models): Sonnet 4.5
    // reaches end of life on November 30th, 2026, Opus 4.5 on January 22nd, 2027.
    expect(resolveModelSettings('anthropic:claude-sonnet-4-5-20250929').retiresOn).toBe('2026-11-30');
    expect(resolveModelSettings('anthropic:claude-opus-4-5-20251101').retiresOn).toBe('2027-01-22');
  });

  it('have a default that is current today (this fails, on purpose, once the default is about to retire)', () => {
    const lifecycle = modelLifecycle(resolveModelSettings(DEFAULT_MODEL), new Date());
    expect(lifecycle, describeLifecycle(DEFAULT_MODEL, lifecycle)).toEqual({ state: 'current' });
    expect(resolveModelSettings(DEFAULT_MODEL)).toMatchObject({ known: true, price: { inputPerMTok: 3 } });
  });

  it('tell retired from retiring from current by the day, UTC', () => {
    const sonnet = resolveModelSettings('anthropic:claude-sonnet-4-5');
    expect(modelLifecycle(sonnet, new Date('2026-11-29T23:59:59Z'))).toEqual({
      state: 'retiring',
      retiresOn: '2026-11-30',
      daysLeft: 1,
      replacement: 'anthropic:claude-sonnet-5-5',
    });
    expect(modelLifecycle(sonnet, new Date('2026-11-30T00:00:00Z')).state).toBe('retired');
    expect(modelLifecycle(sonnet, new Date('2026-10-30T00:00:00Z')).state).toBe('current');
    expect(modelLifecycle(sonnet, new Date('2026-10-31T00:00:00Z')).state).toBe('retiring');
    expect(
      describeLifecycle('x:y', modelLifecycle({ retiresOn: '2026-12-02' }, new Date('2026-12-01T12:00:00Z'))),
    ).toBe(
      'x:y retires on 2026-12-02 (tomorrow); a run still using it then fails: choose another model (--model, or run.models in the config)',
    );
  });
});
