import type { ModelProvider } from '../agent/messages.js';
import { createProvider, parseModelId } from '../agent/providers/index.js';
import type { NightshiftConfig } from '../orchestrator/config.js';

/**
 * Makes providers for model ids from the environment and the config: `openai-compatible:<name>` looks up
 * `<name>` in `openaiCompatible` (base URL, key variable, model name sent) and falls back to OPENAI_BASE_URL.
 * Providers are cached per model id: the SDK clients keep their connection pools.
 */
export function providerFactory(config: Pick<NightshiftConfig, 'openaiCompatible'>, env: NodeJS.ProcessEnv) {
  const cache = new Map<string, ModelProvider>();
  return (modelId: string): ModelProvider => {
    const cached = cache.get(modelId);
    if (cached) return cached;
    const { provider, model } = parseModelId(modelId);
    const server = provider === 'openai-compatible' ? config.openaiCompatible[model] : undefined;
    const made = server
      ? createProvider(`openai-compatible:${server.model ?? model}`, {
          env,
          baseURL: server.baseURL,
          ...(server.apiKeyEnv && env[server.apiKeyEnv] ? { apiKey: env[server.apiKeyEnv] } : {}),
        })
      : createProvider(modelId, { env });
    // Keep the configured id (the price table and the run record use it), not the name sent to the server.
    const provider_ = made.id === modelId ? made : { id: modelId, complete: made.complete.bind(made) };
    cache.set(modelId, provider_);
    return provider_;
  };
}
