import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Message, ModelRequest } from '../../../agent/messages.js';
import { AnthropicStreamAssembler, toAnthropicParams } from '../../../agent/providers/anthropic-wire.js';
import {
  classifyFailure,
  type FailureContext,
  type SdkErrorClasses,
} from '../../../agent/providers/failures.js';
import {
  OpenAIStreamAssembler,
  toOpenAIMessages,
  toOpenAIParams,
} from '../../../agent/providers/openai-wire.js';
import { toolCallFromRaw } from '../../../agent/providers/shared.js';

const conversation: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'Fix the bug.' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Looking.' },
      { type: 'tool_call', id: 't1', name: 'browser_take_screenshot', arguments: {} },
      { type: 'tool_call', id: 't2', name: 'bash', arguments: {}, invalidArguments: '{"command": ' },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Note: 3 steps left.' },
      {
        type: 'tool_result',
        toolCallId: 't1',
        content: 'saved',
        isError: false,
        images: [{ mediaType: 'image/png', base64: 'AAAA' }],
      },
      { type: 'tool_result', toolCallId: 't2', content: 'invalid JSON', isError: true },
    ],
  },
];

const request: ModelRequest = {
  system: 'System prompt.',
  messages: conversation,
  tools: [
    { name: 'bash', description: 'run', inputSchema: { type: 'object' } },
    { name: 'browser_take_screenshot', description: 'shot', inputSchema: { type: 'object' } },
  ],
  maxTokens: 100,
};

describe('toolCallFromRaw', () => {
  it('parses objects, keeps raw text of anything else', () => {
    expect(toolCallFromRaw('a', 'x', '{"k":1}')).toEqual({
      type: 'tool_call',
      id: 'a',
      name: 'x',
      arguments: { k: 1 },
    });
    expect(toolCallFromRaw('a', 'x', '')).toEqual({ type: 'tool_call', id: 'a', name: 'x', arguments: {} });
    expect(toolCallFromRaw('a', 'x', '{"k":').invalidArguments).toBe('{"k":');
    expect(toolCallFromRaw('a', 'x', '[1,2]')).toMatchObject({ arguments: {}, invalidArguments: '[1,2]' });
  });
});

describe('Anthropic request translation', () => {
  const params = toAnthropicParams('claude-test', request);

  it('puts cache breakpoints on the last tool, the system prompt and the newest block only', () => {
    expect(params.tools?.map((tool) => 'cache_control' in tool && tool.cache_control)).toEqual([
      false,
      { type: 'ephemeral' },
    ]);
    expect(params.system).toEqual([
      { type: 'text', text: 'System prompt.', cache_control: { type: 'ephemeral' } },
    ]);
    const blocks = params.messages.flatMap((message) =>
      Array.isArray(message.content) ? message.content : [],
    );
    expect(blocks.filter((block) => 'cache_control' in block && block.cache_control)).toEqual([
      blocks.at(-1),
    ]);
  });

  it('puts tool results first, images inside them, and sends unparsable arguments as {}', () => {
    const last = params.messages[2]!.content as Array<{ type: string }>;
    expect(last.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'text']);
    expect(last[0]).toMatchObject({
      tool_use_id: 't1',
      is_error: false,
      content: [
        { type: 'text', text: 'saved' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      ],
    });
    expect(last[1]).toMatchObject({ tool_use_id: 't2', is_error: true, content: 'invalid JSON' });
    expect(params.messages[1]!.content).toContainEqual({
      type: 'tool_use',
      id: 't2',
      name: 'bash',
      input: {},
    });
  });

  it('omits an empty system prompt and replaces an empty turn', () => {
    const bare = toAnthropicParams('m', {
      ...request,
      system: '',
      messages: [{ role: 'assistant', content: [] }],
    });
    expect(bare.system).toBeUndefined();
    expect(bare.messages[0]!.content).toEqual([
      { type: 'text', text: '(empty)', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('is byte-stable: the same conversation translates to the same body', () => {
    expect(JSON.stringify(toAnthropicParams('claude-test', request))).toBe(JSON.stringify(params));
  });
});

describe('OpenAI request translation', () => {
  it('sends the system first, tool results as tool messages, images in a following user message', () => {
    const messages = toOpenAIMessages('System prompt.', conversation);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
    ]);
    expect(messages[2]).toMatchObject({
      content: 'Looking.',
      tool_calls: [
        { id: 't1', function: { name: 'browser_take_screenshot', arguments: '{}' } },
        { id: 't2', function: { name: 'bash', arguments: '{}' } },
      ],
    });
    expect(messages[5]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Images from tool call t1:' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        { type: 'text', text: 'Note: 3 steps left.' },
      ],
    });
  });

  it('uses max_completion_tokens for OpenAI and max_tokens for compatible servers', () => {
    expect(toOpenAIParams('gpt', request, 'openai')).toMatchObject({ max_completion_tokens: 100 });
    expect(toOpenAIParams('local', request, 'openai-compatible')).toMatchObject({ max_tokens: 100 });
    expect(toOpenAIParams('local', request, 'openai-compatible')).not.toHaveProperty('max_completion_tokens');
  });
});

describe('stream assembly', () => {
  it('assembles Anthropic blocks in index order and keeps usage from both ends', () => {
    const assembler = new AnthropicStreamAssembler();
    const events = [
      {
        type: 'message_start',
        message: {
          model: 'm',
          usage: {
            input_tokens: 5,
            cache_read_input_tokens: 100,
            cache_creation_input_tokens: 7,
            output_tokens: 1,
          },
        },
      },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'u1', name: 'read', input: {} },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"pa' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: 'th":"x"}' },
      },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
    ];
    for (const event of events) assembler.apply(event as never);
    expect(assembler.finished).toBe(false);
    assembler.apply({ type: 'message_stop' } as never);
    expect(assembler.finished).toBe(true);
    expect(assembler.content()).toEqual([
      { type: 'text', text: 'Hi' },
      { type: 'tool_call', id: 'u1', name: 'read', arguments: { path: 'x' } },
    ]);
    expect(assembler.usage).toEqual({
      inputTokens: 5,
      outputTokens: 9,
      cacheReadTokens: 100,
      cacheWriteTokens: 7,
    });
  });

  it('assembles OpenAI tool calls from fragments and subtracts cached tokens from input', () => {
    const assembler = new OpenAIStreamAssembler();
    const chunks = [
      { model: 'g', choices: [{ delta: { role: 'assistant', content: '' } }] },
      {
        model: 'g',
        choices: [
          { delta: { tool_calls: [{ index: 0, id: 'c1', function: { name: 'bash', arguments: '' } }] } },
        ],
      },
      {
        model: 'g',
        choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"command":' } }] } }],
      },
      { model: 'g', choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] } }] },
      { model: 'g', choices: [{ delta: {}, finish_reason: 'tool_calls' }] },
      {
        model: 'g',
        choices: [],
        usage: { prompt_tokens: 50, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 30 } },
      },
    ];
    for (const chunk of chunks) assembler.apply(chunk as never);
    expect(assembler.finishReason).toBe('tool_calls');
    expect(assembler.content()).toEqual([
      { type: 'tool_call', id: 'c1', name: 'bash', arguments: { command: 'ls' } },
    ]);
    expect(assembler.usage).toEqual({
      inputTokens: 20,
      outputTokens: 4,
      cacheReadTokens: 30,
      cacheWriteTokens: 0,
    });
  });
});

const context: FailureContext = {
  providerId: 'anthropic:m',
  keyHint: 'ANTHROPIC_API_KEY',
  baseURL: 'http://x',
  timeoutMs: 1000,
  signal: undefined,
};
const anthropicClasses: SdkErrorClasses = {
  APIError: Anthropic.APIError,
  APIUserAbortError: Anthropic.APIUserAbortError,
  APIConnectionError: Anthropic.APIConnectionError,
  APIConnectionTimeoutError: Anthropic.APIConnectionTimeoutError,
  BaseError: Anthropic.AnthropicError,
};
const openaiClasses: SdkErrorClasses = {
  APIError: OpenAI.APIError,
  APIUserAbortError: OpenAI.APIUserAbortError,
  APIConnectionError: OpenAI.APIConnectionError,
  APIConnectionTimeoutError: OpenAI.APIConnectionTimeoutError,
  BaseError: OpenAI.OpenAIError,
};

describe('failure classification', () => {
  it('classifies statuses from either SDK', () => {
    const headers = new Headers({ 'retry-after': '2' });
    const overflow = {
      error: {
        message: "This model's maximum context length is 128000 tokens",
        code: 'context_length_exceeded',
      },
    };
    expect(
      classifyFailure(Anthropic.APIError.generate(429, {}, undefined, headers), anthropicClasses, context),
    ).toMatchObject({ kind: 'rate_limited', retryAfterMs: 2000 });
    expect(
      classifyFailure(Anthropic.APIError.generate(529, {}, undefined, headers), anthropicClasses, context),
    ).toMatchObject({ kind: 'overloaded', retryAfterMs: 2000 });
    expect(
      classifyFailure(OpenAI.APIError.generate(400, overflow, undefined, headers), openaiClasses, context)
        .kind,
    ).toBe('context_overflow');
    expect(
      classifyFailure(
        OpenAI.APIError.generate(400, { error: { message: 'bad' } }, undefined, headers),
        openaiClasses,
        context,
      ).kind,
    ).toBe('fatal');
    expect(
      classifyFailure(OpenAI.APIError.generate(503, {}, undefined, headers), openaiClasses, context).kind,
    ).toBe('retryable');
    expect(
      classifyFailure(OpenAI.APIError.generate(403, {}, undefined, headers), openaiClasses, context).message,
    ).toContain('ANTHROPIC_API_KEY');
  });

  it('classifies an overloaded error event inside a stream as overloaded', () => {
    const error = new Anthropic.APIError(
      undefined,
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      undefined,
      new Headers(),
    );
    expect(classifyFailure(error, anthropicClasses, context).kind).toBe('overloaded');
  });

  it('says aborted whenever the caller aborted, whatever was thrown', () => {
    const signal = AbortSignal.abort();
    expect(classifyFailure(new TypeError('terminated'), anthropicClasses, { ...context, signal }).kind).toBe(
      'aborted',
    );
    expect(classifyFailure(new Anthropic.APIUserAbortError(), anthropicClasses, context).kind).toBe(
      'aborted',
    );
  });

  it('treats timeouts, connection errors and broken streams as retryable, SDK misuse as fatal', () => {
    expect(classifyFailure(new OpenAI.APIConnectionTimeoutError(), openaiClasses, context).kind).toBe(
      'retryable',
    );
    expect(
      classifyFailure(new OpenAI.APIConnectionError({ message: 'x' }), openaiClasses, context).kind,
    ).toBe('retryable');
    expect(classifyFailure(new TypeError('terminated'), openaiClasses, context).kind).toBe('retryable');
    expect(classifyFailure(new Anthropic.AnthropicError('bad option'), anthropicClasses, context).kind).toBe(
      'fatal',
    );
  });
});
