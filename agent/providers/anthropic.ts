import Anthropic, {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { moduleLogger } from '../../core/log.js';
import type { ModelProvider, ModelRequest, ProviderResult } from '../messages.js';
import {
  AnthropicStreamAssembler,
  fromAnthropicMessage,
  mapAnthropicStopReason,
  mergeAnthropicUsage,
  toAnthropicParams,
} from './anthropic-wire.js';
import { classifyFailure, type FailureContext, type SdkErrorClasses } from './failures.js';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  endOfStreamFailure,
  type SdkProviderOptions,
  startWatchdog,
} from './shared.js';

const log = moduleLogger('agent/providers/anthropic');

/** The API's own endpoint, used when no base URL is given (never the process environment). */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** Options of the Anthropic Messages provider (the key is sent as `x-api-key`; `keyHint` defaults to `ANTHROPIC_API_KEY`). */
export interface AnthropicProviderOptions extends SdkProviderOptions {
  /** API root; the SDK appends `/v1/messages`. Default: the public API. */
  baseURL?: string;
}

const ERROR_CLASSES: SdkErrorClasses = {
  APIError,
  APIUserAbortError,
  APIConnectionError,
  APIConnectionTimeoutError,
  BaseError: AnthropicError,
};

/** A `ModelProvider` over the Anthropic Messages API (official SDK), with prompt caching. */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const baseURL = options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeout: timeoutMs,
    logLevel: 'off',
  });
  const id = `anthropic:${options.model}`;
  const stream = options.stream ?? true;
  const keyHint = options.keyHint ?? 'ANTHROPIC_API_KEY';

  return {
    id,
    async complete(request: ModelRequest): Promise<ProviderResult> {
      const context: FailureContext = { providerId: id, keyHint, baseURL, timeoutMs, signal: request.signal };
      try {
        return stream
          ? await completeStreaming(client, options.model, request, context)
          : await completeOnce(client, options.model, request);
      } catch (error) {
        const failure = classifyFailure(error, ERROR_CLASSES, context);
        log.debug({ provider: id, kind: failure.kind, status: failure.status }, 'model request failed');
        return { ok: false, failure };
      }
    },
  };
}

async function completeOnce(
  client: Anthropic,
  model: string,
  request: ModelRequest,
): Promise<ProviderResult> {
  const params = toAnthropicParams(model, request);
  const message = await client.messages.create({ ...params, stream: false }, { signal: request.signal });
  const content = fromAnthropicMessage(message);
  for (const block of content) if (block.type === 'text') request.onTextDelta?.(block.text);
  const usage = mergeAnthropicUsage(
    { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    message.usage,
  );
  return {
    ok: true,
    response: {
      content,
      stopReason: mapAnthropicStopReason(message.stop_reason),
      usage,
      model: message.model,
    },
  };
}

async function completeStreaming(
  client: Anthropic,
  model: string,
  request: ModelRequest,
  context: FailureContext,
): Promise<ProviderResult> {
  const watchdog = startWatchdog(context.timeoutMs, request.signal);
  try {
    const params = toAnthropicParams(model, request);
    const events = await client.messages.create({ ...params, stream: true }, { signal: watchdog.signal });
    const assembler = new AnthropicStreamAssembler(request.onTextDelta);
    watchdog.touch();
    try {
      for await (const event of events) {
        watchdog.touch();
        assembler.apply(event);
      }
    } catch (error) {
      if (!watchdog.fired || request.signal?.aborted) throw error;
    }
    const failure = endOfStreamFailure(
      context.providerId,
      request.signal,
      watchdog,
      context.timeoutMs,
      assembler.finished ? undefined : 'message_stop',
    );
    if (failure) return { ok: false, failure };
    return {
      ok: true,
      response: {
        content: assembler.content(),
        stopReason: mapAnthropicStopReason(assembler.stopReason),
        usage: assembler.usage,
        model: assembler.model || model,
      },
    };
  } finally {
    watchdog.stop();
  }
}
