import { describe, expect, it } from 'vitest';
import { createProvider, parseModelId } from '../../../agent/providers/index.js';
import { InputError } from '../../../core/errors.js';

function inputErrorOf(run: () => unknown): InputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected an InputError');
}

describe('parseModelId', () => {
  it('splits provider and model at the first colon', () => {
    expect(parseModelId('anthropic:claude-sonnet-4-5')).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    expect(parseModelId('openai:gpt-5.1')).toEqual({ provider: 'openai', model: 'gpt-5.1' });
    expect(parseModelId('openai-compatible:qwen2.5-coder:32b')).toEqual({
      provider: 'openai-compatible',
      model: 'qwen2.5-coder:32b',
    });
  });

  it.each(['claude-sonnet-4-5', 'anthropic:', ''])('rejects "%s" and shows the expected form', (id) => {
    const error = inputErrorOf(() => parseModelId(id));
    expect(error.code).toBe('MODEL_ID_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.describe()).toContain('provider:model');
    expect(error.describe()).toContain('anthropic:claude-sonnet-5-5');
  });

  it('rejects an unknown provider and lists the known ones', () => {
    const error = inputErrorOf(() => parseModelId('gemini:pro'));
    expect(error.code).toBe('MODEL_PROVIDER_UNKNOWN');
    expect(error.message).toContain('"gemini"');
    expect(error.describe()).toContain('anthropic, openai, openai-compatible');
  });
});

describe('createProvider', () => {
  it('names the missing key variable', () => {
    const anthropic = inputErrorOf(() => createProvider('anthropic:claude-sonnet-4-5', { env: {} }));
    expect(anthropic.code).toBe('MODEL_KEY_MISSING');
    expect(anthropic.message).toContain('ANTHROPIC_API_KEY');
    const openai = inputErrorOf(() => createProvider('openai:gpt-5.1', { env: { OPENAI_API_KEY: '  ' } }));
    expect(openai.message).toContain('OPENAI_API_KEY');
  });

  it('reads keys from the given env, and an explicit key wins', () => {
    expect(createProvider('anthropic:claude-sonnet-4-5', { env: { ANTHROPIC_API_KEY: 'sk-x' } }).id).toBe(
      'anthropic:claude-sonnet-4-5',
    );
    expect(createProvider('openai:gpt-5.1', { env: {}, apiKey: 'sk-y' }).id).toBe('openai:gpt-5.1');
  });

  it('needs a base URL for openai-compatible, but no key', () => {
    const error = inputErrorOf(() => createProvider('openai-compatible:llama3.1', { env: {} }));
    expect(error.code).toBe('MODEL_BASE_URL_MISSING');
    expect(error.describe()).toContain('OPENAI_BASE_URL');
    const provider = createProvider('openai-compatible:llama3.1', {
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' },
    });
    expect(provider.id).toBe('openai-compatible:llama3.1');
  });

  it('rejects a bad id before looking at keys', () => {
    expect(inputErrorOf(() => createProvider('nonsense', { env: {} })).code).toBe('MODEL_ID_INVALID');
  });
});
