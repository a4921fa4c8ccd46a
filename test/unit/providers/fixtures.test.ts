/**
 * Wire shapes as each provider documents them, one message per provider (never a blend), fed to the same
 * assemblers and classifier the providers use. Written from the API references (field names, stop reasons,
 * error types and codes), not recorded traffic: the live contract tests (test/live) pin the real thing.
 */
import Anthropic from '@anthropic-ai/sdk';
import type {
  Message as AnthropicMessage,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../../agent/messages.js';
import {
  AnthropicStreamAssembler,
  fromAnthropicMessage,
  mapAnthropicStopReason,
  mergeAnthropicUsage,
} from '../../../agent/providers/anthropic-wire.js';
import {
  classifyFailure,
  type FailureContext,
  type SdkErrorClasses,
} from '../../../agent/providers/failures.js';
import {
  fromOpenAICompletion,
  fromOpenAIUsage,
  mapOpenAIFinishReason,
  OpenAIStreamAssembler,
  reasoningTokensOf,
} from '../../../agent/providers/openai-wire.js';

const anthropic: SdkErrorClasses = {
  APIError: Anthropic.APIError,
  APIUserAbortError: Anthropic.APIUserAbortError,
  APIConnectionError: Anthropic.APIConnectionError,
  APIConnectionTimeoutError: Anthropic.APIConnectionTimeoutError,
  BaseError: Anthropic.AnthropicError,
};
const openai: SdkErrorClasses = {
  APIError: OpenAI.APIError,
  APIUserAbortError: OpenAI.APIUserAbortError,
  APIConnectionError: OpenAI.APIConnectionError,
  APIConnectionTimeoutError: OpenAI.APIConnectionTimeoutError,
  BaseError: OpenAI.OpenAIError,
};
const context = (keyHint: string): FailureContext => ({
  providerId: 'p:m',
  keyHint,
  baseURL: 'https://api.example',
  timeoutMs: 1_000,
  signal: undefined,
});

describe('Anthropic Messages', () => {
  it('a refusal: stop_reason refusal, usage with cache fields', () => {
    const message = {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [],
      stop_reason: 'refusal',
      stop_sequence: null,
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 1_500,
        cache_read_input_tokens: 30_000,
        output_tokens: 3,
      },
    } as unknown as AnthropicMessage;
    expect(mapAnthropicStopReason(message.stop_reason)).toBe('refusal');
    expect(fromAnthropicMessage(message)).toEqual([]);
    expect(mergeAnthropicUsage(emptyUsage(), message.usage)).toEqual({
      inputTokens: 12,
      outputTokens: 3,
      cacheReadTokens: 30_000,
      cacheWriteTokens: 1_500,
    });
  });

  it('a stream with extended thinking, then a tool call cut at max_tokens', () => {
    const events = [
      {
        type: 'message_start',
        message: { model: 'claude-opus-4-5', usage: { input_tokens: 50, output_tokens: 1 } },
      },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'Write the file.' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: 'EqQBCkYIARgC' },
      },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_01', name: 'write', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"path": "a.js", "con' },
      },
      {
        type: 'message_delta',
        delta: { stop_reason: 'max_tokens', stop_sequence: null },
        usage: { output_tokens: 1024 },
      },
      { type: 'message_stop' },
    ] as unknown as RawMessageStreamEvent[];
    const assembler = new AnthropicStreamAssembler();
    for (const event of events) assembler.apply(event);
    expect(mapAnthropicStopReason(assembler.stopReason)).toBe('max_tokens');
    expect(assembler.content()).toEqual([
      { type: 'thinking', text: 'Write the file.', signature: 'EqQBCkYIARgC' },
      {
        type: 'tool_call',
        id: 'toolu_01',
        name: 'write',
        arguments: {},
        invalidArguments: '{"path": "a.js", "con',
      },
    ]);
    expect(assembler.usage.outputTokens).toBe(1_024);
  });

  it.each([
    [529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'overloaded'],
    [
      429,
      {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: 'Number of request tokens has exceeded your per-minute rate limit',
        },
      },
      'rate_limited',
    ],
    [
      400,
      {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'Your credit balance is too low to access the Anthropic API.',
        },
      },
      'quota_exhausted',
    ],
    [
      400,
      {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 210000 tokens > 200000 maximum',
        },
      },
      'context_overflow',
    ],
    [401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }, 'auth'],
    [
      404,
      { type: 'error', error: { type: 'not_found_error', message: 'model: claude-nope' } },
      'model_not_found',
    ],
  ] as const)('HTTP %i %j is %s', (status, body, kind) => {
    const error = Anthropic.APIError.generate(status, body, undefined, new Headers({ 'retry-after': '4' }));
    const failure = classifyFailure(error, anthropic, context('ANTHROPIC_API_KEY'));
    expect(failure.kind).toBe(kind);
    expect(failure.message).toContain(body.error.message);
    if (kind === 'overloaded' || kind === 'rate_limited') expect(failure.retryAfterMs).toBe(4_000);
  });
});

describe('OpenAI Chat Completions', () => {
  it('a reasoning model cut at the limit: finish_reason length, cached and reasoning tokens', () => {
    const completion = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-5-mini-2025-08-07',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: '', refusal: null },
          finish_reason: 'length',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 2_006,
        completion_tokens: 300,
        total_tokens: 2_306,
        prompt_tokens_details: { cached_tokens: 1_920, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 300,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    } as unknown as ChatCompletion;
    expect(fromOpenAICompletion(completion).content).toEqual([]);
    expect(mapOpenAIFinishReason('length', false)).toBe('max_tokens');
    expect(fromOpenAIUsage(completion.usage)).toEqual({
      inputTokens: 86,
      outputTokens: 300,
      cacheReadTokens: 1_920,
      cacheWriteTokens: 0,
    });
    expect(reasoningTokensOf(completion.usage)).toBe(300);
  });

  it('a refusal: content null, the refusal field set', () => {
    const completion = {
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, refusal: "I'm sorry, I can't assist with that." },
          finish_reason: 'stop',
        },
      ],
    } as unknown as ChatCompletion;
    const reply = fromOpenAICompletion(completion);
    expect(reply).toEqual({ content: [], refusal: "I'm sorry, I can't assist with that." });
    expect(mapOpenAIFinishReason('stop', false, true)).toBe('refusal');
    expect(mapOpenAIFinishReason('content_filter', false)).toBe('refusal');
  });

  it.each([
    [
      429,
      {
        error: {
          message: 'You exceeded your current quota, please check your plan and billing details.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        },
      },
      'quota_exhausted',
    ],
    [
      429,
      {
        error: {
          message: 'Rate limit reached for gpt-5 on tokens per min (TPM)',
          type: 'tokens',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
      'rate_limited',
    ],
    [
      400,
      {
        error: {
          message: "This model's maximum context length is 400000 tokens.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
      'context_overflow',
    ],
    [
      400,
      {
        error: {
          message: 'Invalid content type. image_url is only supported by certain models.',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
      'images_unsupported',
    ],
    [
      401,
      {
        error: {
          message: 'Incorrect API key provided: sk-abc***.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
      'auth',
    ],
    [
      404,
      {
        error: {
          message: 'The model `gpt-9` does not exist or you do not have access to it.',
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
      },
      'model_not_found',
    ],
    [
      503,
      {
        error: {
          message: 'The server is overloaded or not ready yet.',
          type: 'server_error',
          param: null,
          code: null,
        },
      },
      'retryable',
    ],
  ] as const)('HTTP %i %j is %s', (status, body, kind) => {
    const error = OpenAI.APIError.generate(status, body, undefined, new Headers());
    const failure = classifyFailure(error, openai, context('OPENAI_API_KEY'));
    expect(failure.kind).toBe(kind);
    expect(failure.message).toContain(body.error.message);
  });
});

describe('OpenAI-compatible servers', () => {
  it('Ollama: two streamed calls at index 0 with their own ids, finish_reason stop', () => {
    const chunk = (delta: object, finish: string | null = null) =>
      ({
        id: 'chatcmpl-9',
        model: 'qwen2.5-coder:7b',
        choices: [{ index: 0, delta, finish_reason: finish }],
      }) as unknown as ChatCompletionChunk;
    const assembler = new OpenAIStreamAssembler(undefined, 'openai-compatible');
    assembler.apply(chunk({ role: 'assistant', content: '' }));
    assembler.apply(
      chunk({
        tool_calls: [
          {
            id: 'call_a1',
            index: 0,
            type: 'function',
            function: { name: 'file_write', arguments: '{"filePath":"hello.py","content":"print(1)"}' },
          },
        ],
      }),
    );
    assembler.apply(
      chunk({
        tool_calls: [
          {
            id: 'call_b2',
            index: 0,
            type: 'function',
            function: { name: 'file_write', arguments: '{"filePath":"world.py","content":"print(2)"}' },
          },
        ],
      }),
    );
    assembler.apply(chunk({}, 'stop'));
    const content = assembler.content();
    expect(
      content.map((block) => block.type === 'tool_call' && [block.id, block.name, block.arguments.filePath]),
    ).toEqual([
      ['call_a1', 'file_write', 'hello.py'],
      ['call_b2', 'file_write', 'world.py'],
    ]);
    expect(mapOpenAIFinishReason(assembler.finishReason, true)).toBe('tool_use');
  });

  it('vLLM with a reasoning parser: reasoning beside the content, not in it', () => {
    const assembler = new OpenAIStreamAssembler(undefined, 'openai-compatible');
    const chunk = (delta: object, finish: string | null = null) =>
      ({
        model: 'Qwen/Qwen3-8B',
        choices: [{ index: 0, delta, finish_reason: finish }],
      }) as unknown as ChatCompletionChunk;
    assembler.apply(chunk({ reasoning_content: 'The user wants 42.' }));
    assembler.apply(chunk({ content: '42' }, 'stop'));
    expect(assembler.content()).toEqual([
      { type: 'thinking', text: 'The user wants 42.' },
      { type: 'text', text: '42' },
    ]);
  });

  it('OpenRouter out of credit (402) is quota_exhausted', () => {
    const body = {
      error: {
        message: 'Insufficient credits. Add more using https://openrouter.ai/settings/credits',
        code: 402,
      },
    };
    const failure = classifyFailure(
      OpenAI.APIError.generate(402, body, undefined, new Headers()),
      openai,
      context('OPENROUTER_API_KEY'),
    );
    expect(failure.kind).toBe('quota_exhausted');
  });
});
