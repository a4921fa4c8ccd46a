import Anthropic, {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { emptyUsage, type ModelProvider, type ModelRequest, type ProviderResult } from '../messages.js';
import type { ReasoningSettings } from '../models.js';
import {
  AnthropicStreamAssembler,
  fromAnthropicMessage,
  mapAnthropicStopReason,
  mergeAnthropicUsage,
  toAnthropicParams,
} from './anthropic-wire.js';
import type { FailureContext, SdkErrorClasses } from './failures.js';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  replayText,
  type SdkProviderOptions,
  sdkProvider,
} from './shared.js';
import { readStream } from './stream-watchdog.js';

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
  const reasoning = options.reasoning ?? options.settings?.reasoning;
  return sdkProvider({
    id: `anthropic:${options.model}`,
    keyHint: options.keyHint ?? 'ANTHROPIC_API_KEY',
    baseURL,
    timeoutMs,
    stream: options.stream ?? options.settings?.streaming ?? true,
    vision: options.vision ?? options.settings?.vision ?? true,
    classes: ERROR_CLASSES,
    settings: options.settings,
    once: (request) => completeOnce(client, options.model, request, reasoning),
    streaming: (request, context) => completeStreaming(client, options.model, request, context, reasoning),
  });
}

async function completeOnce(
  client: Anthropic,
  model: string,
  request: ModelRequest,
  reasoning: ReasoningSettings | undefined,
): Promise<ProviderResult> {
  const params = toAnthropicParams(model, request, reasoning);
  const message = await client.messages.create({ ...params, stream: false }, { signal: request.signal });
  const content = fromAnthropicMessage(message);
  replayText(content, request);
  return {
    ok: true,
    response: {
      content,
      stopReason: mapAnthropicStopReason(message.stop_reason),
      usage: mergeAnthropicUsage(emptyUsage(), message.usage),
      model: message.model,
    },
  };
}

function completeStreaming(
  client: Anthropic,
  model: string,
  request: ModelRequest,
  context: FailureContext,
  reasoning: ReasoningSettings | undefined,
): Promise<ProviderResult> {
  const params = toAnthropicParams(model, request, reasoning);
  const assembler = new AnthropicStreamAssembler(request.onTextDelta);
  return readStream(request, context, {
    open: (signal) => client.messages.create({ ...params, stream: true }, { signal }),
    apply: (event) => assembler.apply(event),
    missingFinalEvent: () => (assembler.finished ? undefined : 'message_stop'),
    response: () => ({
      content: assembler.content(),
      stopReason: mapAnthropicStopReason(assembler.stopReason),
      usage: assembler.usage,
      model: assembler.model || model,
    }),
  });
}
