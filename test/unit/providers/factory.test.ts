import { describe, expect, it } from 'vitest';
import { resolveModelSettings } from '../../../agent/models.js';
import { InputError } from '../../../core/errors.js';
import { failingProvider, providerFactory } from '../../../workers/provider-factory.js';

const config = { openaiCompatible: { ollama: { baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b' } } };

describe('providerFactory', () => {
  it('carries the run settings on the provider, under the configured id', () => {
    const make = providerFactory(config, {});
    const settings = resolveModelSettings('openai-compatible:ollama', {
      overrides: { 'openai-compatible:ollama': { contextWindow: 16_384 } },
    });
    const provider = make('openai-compatible:ollama', settings);
    expect(provider.id).toBe('openai-compatible:ollama');
    expect(provider.settings).toMatchObject({ contextWindow: 16_384, vision: false });
    expect(make('openai-compatible:ollama', settings)).toBe(provider);
  });

  it('throws an InputError naming the variable when a key is missing', () => {
    const make = providerFactory(config, {});
    expect(() => make('anthropic:claude-sonnet-4-5')).toThrow(InputError);
    expect(() => make('anthropic:claude-sonnet-4-5')).toThrow(/ANTHROPIC_API_KEY is not set/);
  });
});

describe('failingProvider', () => {
  it('fails every request as auth with the reason and its fix, so the run fails at once', async () => {
    let error: unknown;
    try {
      providerFactory(config, {})('openai:gpt-5');
    } catch (caught) {
      error = caught;
    }
    const provider = failingProvider('openai:gpt-5', error);
    const result = await provider.complete({ system: '', messages: [], tools: [], maxTokens: 16 });
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: 'auth',
        message: expect.stringMatching(
          /^openai:gpt-5: OPENAI_API_KEY is not set.*\n {2}→ Export OPENAI_API_KEY/s,
        ),
      },
    });
  });
});
