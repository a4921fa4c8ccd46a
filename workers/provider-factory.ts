import type { ModelProvider, ProviderFailure } from '../agent/messages.js';
import type { ResolvedModelSettings } from '../agent/models.js';
import { createProvider, parseModelId } from '../agent/providers/index.js';
import { NightshiftError } from '../core/errors.js';
import type { NightshiftConfig } from '../orchestrator/config.js';

/** Makes a provider for a model id with its settings (window, output limit, vision, streaming, reasoning, price). */
export type ProviderMaker = (modelId: string, settings?: ResolvedModelSettings) => ModelProvider;

/**
 * Makes providers for model ids from the environment and the config: `openai-compatible:<name>` looks up
 * `<name>` in `openaiCompatible` (base URL, key variable, model name sent) and falls back to OPENAI_BASE_URL.
 * Providers are cached per model id and settings: the SDK clients keep their connection pools.
 */
export function providerFactory(
  config: Pick<NightshiftConfig, 'openaiCompatible'>,
  env: NodeJS.ProcessEnv,
): ProviderMaker {
  const cache = new Map<string, ModelProvider>();
  return (modelId, settings) => {
    const key = `${modelId}\n${JSON.stringify(settings ?? null)}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const { provider, model } = parseModelId(modelId);
    const server = provider === 'openai-compatible' ? config.openaiCompatible[model] : undefined;
    const common = { env, ...(settings ? { settings } : {}) };
    const made = server
      ? createProvider(`openai-compatible:${server.model ?? model}`, {
          ...common,
          baseURL: server.baseURL,
          ...(server.apiKeyEnv && env[server.apiKeyEnv] ? { apiKey: env[server.apiKeyEnv] } : {}),
        })
      : createProvider(modelId, common);
    // Keep the configured id (the price table and the run record use it), not the name sent to the server.
    const provider_: ModelProvider =
      made.id === modelId
        ? made
        : {
            id: modelId,
            ...(made.settings ? { settings: made.settings } : {}),
            complete: made.complete.bind(made),
          };
    cache.set(key, provider_);
    return provider_;
  };
}

/**
 * A provider that fails every request with `failure`: what a session gets when its provider cannot be made
 * (no key in this worker's environment, no base URL). The session then ends with the provider's own
 * outcome and message, and the run fails with the fix, instead of the job failing and retrying for ever.
 */
export function failingProvider(
  modelId: string,
  error: unknown,
  settings?: ResolvedModelSettings,
): ModelProvider {
  const message =
    error instanceof NightshiftError
      ? error.describe()
      : error instanceof Error
        ? error.message
        : String(error);
  const failure: ProviderFailure = { kind: 'auth', message: `${modelId}: ${message}` };
  return {
    id: modelId,
    ...(settings ? { settings } : {}),
    complete: async () => ({ ok: false, failure }),
  };
}
