import { randomBytes } from 'node:crypto';
import { type OutgoingReply, type OutgoingToolCall, type SimulatedUsage, splitInto } from './reply.js';
import type { ServerQuirks } from './types.js';

/** `length` when cut at the output limit; a refusal ends with `stop` and a `refusal` field. */
function finishReason(reply: OutgoingReply): string {
  if (reply.stop === 'max_tokens') return 'length';
  return reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function usageJson(usage: SimulatedUsage, reply: OutgoingReply): object {
  const prompt = usage.input + usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reply.reasoningTokens ?? 0, audio_tokens: 0 },
  };
}

/** The visible text as a server that inlines reasoning sends it. */
function contentText(reply: OutgoingReply, quirks: ServerQuirks): string {
  return quirks.thinkText ? `<think>${quirks.thinkText}</think>\n\n${reply.text}` : reply.text;
}

/** Arguments as the server sends them: a string, or (quirk) the decoded object when it is one. */
function argumentsOf(call: OutgoingToolCall, quirks: ServerQuirks): unknown {
  if (!quirks.objectArguments) return call.argumentsText;
  try {
    return JSON.parse(call.argumentsText);
  } catch {
    return call.argumentsText;
  }
}

/** A completion id in the API's style. */
export function openAICompletionId(): string {
  return `chatcmpl-${randomBytes(12).toString('hex')}`;
}

/**
 * The `data:` payloads of a streamed reply (without the final `[DONE]`): a role chunk, text deltas,
 * tool calls (id and name first, then the argument text in several fragments), a chunk with the
 * finish reason, and — when asked with `stream_options.include_usage` — a usage chunk with no choices.
 */
export function openAIStreamChunks(
  reply: OutgoingReply,
  model: string,
  usage: SimulatedUsage,
  includeUsage: boolean,
  quirks: ServerQuirks = {},
): string[] {
  const base = {
    id: openAICompletionId(),
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
  };
  const chunk = (delta: object, finish: string | null = null) =>
    JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const chunks = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const content of splitInto(contentText(reply, quirks), 4)) chunks.push(chunk({ content }));
  for (const refusal of splitInto(reply.refusal ?? '', 3)) chunks.push(chunk({ refusal }));
  const id = (call: OutgoingToolCall) => (quirks.omitToolCallIds ? {} : { id: call.id });
  reply.toolCalls.forEach((call, index) => {
    if (quirks.toolCallIndexZero) {
      // Ollama: each call whole in one chunk, every one at index 0.
      const fn = { name: call.name, arguments: argumentsOf(call, quirks) };
      chunks.push(chunk({ tool_calls: [{ index: 0, ...id(call), type: 'function', function: fn }] }));
      return;
    }
    chunks.push(
      chunk({
        tool_calls: [{ index, ...id(call), type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    if (quirks.objectArguments) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: argumentsOf(call, quirks) } }] }));
      return;
    }
    for (const fragment of splitInto(call.argumentsText, 3)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  chunks.push(chunk({}, finishReason(reply)));
  if (includeUsage) chunks.push(JSON.stringify({ ...base, choices: [], usage: usageJson(usage, reply) }));
  return chunks;
}

/** The JSON of a non-streamed reply. */
export function openAICompletionJson(
  reply: OutgoingReply,
  model: string,
  usage: SimulatedUsage,
  quirks: ServerQuirks = {},
): object {
  const text = contentText(reply, quirks);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: (text === '' && reply.toolCalls.length > 0) || reply.refusal ? null : text,
    refusal: reply.refusal ?? null,
  };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      ...(quirks.omitToolCallIds ? {} : { id: call.id }),
      type: 'function',
      function: { name: call.name, arguments: argumentsOf(call, quirks) },
    }));
  }
  return {
    id: openAICompletionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
    usage: usageJson(usage, reply),
  };
}

/** An error body as the Chat Completions API sends it (`type` follows the status unless given). */
export function openAIErrorBody(
  status: number,
  message: string,
  code: string | null = null,
  type?: string,
): object {
  const byStatus = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type: type ?? byStatus, param: null, code } };
}
