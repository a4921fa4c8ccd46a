import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from 'openai';
import { moduleLogger } from '../../core/log.js';
import type { ModelProvider, ModelRequest, ProviderResult } from '../messages.js';
import { classifyFailure, type FailureContext, type SdkErrorClasses } from './failures.js';
import {
  fromOpenAICompletion,
  fromOpenAIUsage,
  mapOpenAIFinishReason,
  type OpenAIFlavour,
  OpenAIStreamAssembler,
  toOpenAIParams,
} from './openai-wire.js';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  endOfStreamFailure,
  type SdkProviderOptions,
  startWatchdog,
} from './shared.js';

const log = moduleLogger('agent/providers/openai');

/** The API's own endpoint, used when no base URL is given (never the process environment). */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Options of the Chat Completions provider, OpenAI or any compatible server (`keyHint` defaults to `OPENAI_API_KEY`). */
export interface OpenAIProviderOptions extends SdkProviderOptions {
  /** API root ending in `/v1`; the SDK appends `/chat/completions`. Default: the public API. */
  baseURL?: string;
  /** `openai` (default) or `openai-compatible`; decides the provider id and a few wire details. */
  providerName?: OpenAIFlavour;
}

const ERROR_CLASSES: SdkErrorClasses = {
  APIError,
  APIUserAbortError,
  APIConnectionError,
  APIConnectionTimeoutError,
  BaseError: OpenAIError,
};

/** A `ModelProvider` over the Chat Completions API (official `openai` SDK). */
export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  const flavour = options.providerName ?? 'openai';
  const baseURL = options.baseURL ?? OPENAI_DEFAULT_BASE_URL;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeout: timeoutMs,
    logLevel: 'off',
  });
  const id = `${flavour}:${options.model}`;
  const stream = options.stream ?? true;
  const keyHint =
    options.keyHint ?? (flavour === 'openai' ? 'OPENAI_API_KEY' : 'OPENAI_API_KEY and OPENAI_BASE_URL');

  return {
    id,
    async complete(request: ModelRequest): Promise<ProviderResult> {
      const context: FailureContext = { providerId: id, keyHint, baseURL, timeoutMs, signal: request.signal };
      try {
        const params = toOpenAIParams(options.model, request, flavour);
        return stream
          ? await completeStreaming(client, params, request, context)
          : await completeOnce(client, params, request);
      } catch (error) {
        const failure = classifyFailure(error, ERROR_CLASSES, context);
        log.debug({ provider: id, kind: failure.kind, status: failure.status }, 'model request failed');
        return { ok: false, failure };
      }
    },
  };
}

type Params = ReturnType<typeof toOpenAIParams>;

async function completeOnce(client: OpenAI, params: Params, request: ModelRequest): Promise<ProviderResult> {
  const completion = await client.chat.completions.create(
    { ...params, stream: false },
    { signal: request.signal },
  );
  const content = fromOpenAICompletion(completion);
  for (const block of content) if (block.type === 'text') request.onTextDelta?.(block.text);
  const hasCalls = content.some((block) => block.type === 'tool_call');
  return {
    ok: true,
    response: {
      content,
      stopReason: mapOpenAIFinishReason(completion.choices[0]?.finish_reason, hasCalls),
      usage: fromOpenAIUsage(completion.usage),
      model: completion.model || params.model,
    },
  };
}

async function completeStreaming(
  client: OpenAI,
  params: Params,
  request: ModelRequest,
  context: FailureContext,
): Promise<ProviderResult> {
  const watchdog = startWatchdog(context.timeoutMs, request.signal);
  try {
    const chunks = await client.chat.completions.create(
      { ...params, stream: true, stream_options: { include_usage: true } },
      { signal: watchdog.signal },
    );
    const assembler = new OpenAIStreamAssembler(request.onTextDelta);
    watchdog.touch();
    try {
      for await (const chunk of chunks) {
        watchdog.touch();
        assembler.apply(chunk);
      }
    } catch (error) {
      if (!watchdog.fired || request.signal?.aborted) throw error;
    }
    const failure = endOfStreamFailure(
      context.providerId,
      request.signal,
      watchdog,
      context.timeoutMs,
      assembler.finishReason !== null ? undefined : 'a finish_reason',
    );
    if (failure) return { ok: false, failure };
    const content = assembler.content();
    return {
      ok: true,
      response: {
        content,
        stopReason: mapOpenAIFinishReason(
          assembler.finishReason,
          content.some((block) => block.type === 'tool_call'),
        ),
        usage: assembler.usage,
        model: assembler.model || params.model,
      },
    };
  } finally {
    watchdog.stop();
  }
}
