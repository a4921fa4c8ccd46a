import { InputError } from '../../core/errors.js';
import type { ModelProvider } from '../messages.js';
import type { ResolvedModelSettings } from '../models.js';
import { createAnthropicProvider } from './anthropic.js';
import { createOpenAIProvider } from './openai.js';

export { type AnthropicProviderOptions, createAnthropicProvider } from './anthropic.js';
export { createOpenAIProvider, type OpenAIProviderOptions } from './openai.js';

/** The providers a model id may name. */
export const PROVIDER_NAMES = ['anthropic', 'openai', 'openai-compatible'] as const;

/** One of {@link PROVIDER_NAMES}. */
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** A model id split into its parts. */
export interface ParsedModelId {
  provider: ProviderName;
  model: string;
}

/** Key placeholder for compatible servers that want no key (the SDK refuses an empty one). */
export const NO_KEY_PLACEHOLDER = 'not-needed';

const EXAMPLES = 'e.g. anthropic:claude-sonnet-5-5, openai:gpt-5.1 or openai-compatible:llama3.1';

/** Splits `provider:model`; a bad id is an `InputError` that shows the expected form. */
export function parseModelId(id: string): ParsedModelId {
  const colon = id.indexOf(':');
  const provider = colon < 0 ? '' : id.slice(0, colon).trim();
  const model = colon < 0 ? '' : id.slice(colon + 1).trim();
  if (colon < 0 || model === '') {
    throw new InputError('MODEL_ID_INVALID', `Model id "${id}" is not of the form provider:model`, {
      hint: `Write the provider, a colon and the model name, ${EXAMPLES}`,
    });
  }
  if (!(PROVIDER_NAMES as readonly string[]).includes(provider)) {
    throw new InputError(
      'MODEL_PROVIDER_UNKNOWN',
      `Model id "${id}" names an unknown provider "${provider}"`,
      {
        hint: `Use one of ${PROVIDER_NAMES.join(', ')} in provider:model, ${EXAMPLES}`,
      },
    );
  }
  return { provider: provider as ProviderName, model };
}

/** Options of {@link createProvider}; explicit values win over the environment. */
export interface CreateProviderOptions {
  /** Where to read `ANTHROPIC_*` / `OPENAI_*` from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** API root (overrides `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`). */
  baseURL?: string;
  /** API key (overrides `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`). */
  apiKey?: string;
  /** SDK retries (default 0: the harness's retry helper retries, see core/retry.ts). */
  maxRetries?: number;
  /** Timeout of one HTTP attempt and longest silent stream (default 10 minutes). */
  timeoutMs?: number;
  /** Stream replies (default: the model's settings, else true). */
  stream?: boolean;
  /** The model's settings (streaming, vision, reasoning; window and price for the loop). */
  settings?: ResolvedModelSettings;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function missingKey(variable: string, modelId: string): InputError {
  return new InputError('MODEL_KEY_MISSING', `${variable} is not set, and model ${modelId} needs it`, {
    hint: `Export ${variable} (or put it in the environment of the worker), or choose another model`,
  });
}

/** A provider for `provider:model`, configured from explicit options and then the environment. */
export function createProvider(modelId: string, options: CreateProviderOptions = {}): ModelProvider {
  const { provider, model } = parseModelId(modelId);
  const env = options.env ?? process.env;
  const common = {
    model,
    maxRetries: options.maxRetries,
    timeoutMs: options.timeoutMs,
    stream: options.stream,
    ...(options.settings ? { settings: options.settings } : {}),
  };
  if (provider === 'anthropic') {
    const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env.ANTHROPIC_API_KEY);
    if (!apiKey) throw missingKey('ANTHROPIC_API_KEY', modelId);
    const baseURL = nonEmpty(options.baseURL) ?? nonEmpty(env.ANTHROPIC_BASE_URL);
    return createAnthropicProvider({ ...common, apiKey, baseURL });
  }
  const baseURL = nonEmpty(options.baseURL) ?? nonEmpty(env.OPENAI_BASE_URL);
  if (provider === 'openai') {
    const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env.OPENAI_API_KEY);
    if (!apiKey) throw missingKey('OPENAI_API_KEY', modelId);
    return createOpenAIProvider({ ...common, apiKey, baseURL, providerName: 'openai' });
  }
  if (!baseURL) {
    throw new InputError('MODEL_BASE_URL_MISSING', `Model ${modelId} needs the base URL of its server`, {
      hint: 'Set OPENAI_BASE_URL (or the baseURL option), e.g. http://127.0.0.1:11434/v1 for Ollama',
    });
  }
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env.OPENAI_API_KEY) ?? NO_KEY_PLACEHOLDER;
  return createOpenAIProvider({ ...common, apiKey, baseURL, providerName: 'openai-compatible' });
}
