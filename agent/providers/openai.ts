import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from 'openai';
import type { ModelProvider, ModelRequest, ProviderResult } from '../messages.js';
import type { ReasoningSettings } from '../models.js';
import type { FailureContext, SdkErrorClasses } from './failures.js';
import {
  fromOpenAICompletion,
  fromOpenAIUsage,
  mapOpenAIFinishReason,
  type OpenAIFlavour,
  OpenAIStreamAssembler,
  reasoningTokensOf,
  toOpenAIParams,
} from './openai-wire.js';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  replayText,
  type SdkProviderOptions,
  sdkProvider,
} from './shared.js';
import { readStream } from './stream-watchdog.js';

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

/** What the two request paths share. */
interface Shell {
  client: OpenAI;
  model: string;
  flavour: OpenAIFlavour;
  reasoning: ReasoningSettings | undefined;
}

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
  const shell: Shell = {
    client,
    model: options.model,
    flavour,
    reasoning: options.reasoning ?? options.settings?.reasoning,
  };
  return sdkProvider({
    id: `${flavour}:${options.model}`,
    keyHint:
      options.keyHint ?? (flavour === 'openai' ? 'OPENAI_API_KEY' : 'OPENAI_API_KEY and OPENAI_BASE_URL'),
    baseURL,
    timeoutMs,
    stream: options.stream ?? options.settings?.streaming ?? true,
    vision: options.vision ?? options.settings?.vision ?? flavour === 'openai',
    classes: ERROR_CLASSES,
    settings: options.settings,
    once: (request) => completeOnce(shell, request),
    streaming: (request, context) => completeStreaming(shell, request, context),
  });
}

function params(shell: Shell, request: ModelRequest) {
  return toOpenAIParams(shell.model, request, shell.flavour, shell.reasoning);
}

async function completeOnce(shell: Shell, request: ModelRequest): Promise<ProviderResult> {
  const body = params(shell, request);
  const completion = await shell.client.chat.completions.create(
    { ...body, stream: false },
    { signal: request.signal },
  );
  const reply = fromOpenAICompletion(completion, shell.flavour);
  replayText(reply.content, request);
  const hasCalls = reply.content.some((block) => block.type === 'tool_call');
  const reasoningTokens = reasoningTokensOf(completion.usage);
  return {
    ok: true,
    response: {
      content: reply.content,
      stopReason: mapOpenAIFinishReason(
        completion.choices[0]?.finish_reason,
        hasCalls,
        Boolean(reply.refusal),
      ),
      usage: fromOpenAIUsage(completion.usage),
      ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
      ...(reply.refusal ? { refusal: reply.refusal } : {}),
      model: completion.model || body.model,
    },
  };
}

function completeStreaming(
  shell: Shell,
  request: ModelRequest,
  context: FailureContext,
): Promise<ProviderResult> {
  const body = params(shell, request);
  const assembler = new OpenAIStreamAssembler(request.onTextDelta, shell.flavour);
  return readStream(request, context, {
    open: (signal) =>
      shell.client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal },
      ),
    apply: (chunk) => assembler.apply(chunk),
    missingFinalEvent: () => (assembler.finishReason !== null ? undefined : 'a finish_reason'),
    response: () => {
      const content = assembler.content();
      const refusal = assembler.refusalText();
      return {
        content,
        stopReason: mapOpenAIFinishReason(
          assembler.finishReason,
          content.some((block) => block.type === 'tool_call'),
          Boolean(refusal),
        ),
        usage: assembler.usage,
        ...(assembler.reasoningTokens === undefined ? {} : { reasoningTokens: assembler.reasoningTokens }),
        ...(refusal ? { refusal } : {}),
        model: assembler.model || body.model,
      };
    },
  });
}
