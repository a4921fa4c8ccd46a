import { randomBytes } from 'node:crypto';
import { type OutgoingReply, type SimulatedUsage, splitInto } from './reply.js';

function finishReason(reply: OutgoingReply): string {
  return reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function usageJson(usage: SimulatedUsage): object {
  const prompt = usage.input + usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
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
  for (const content of splitInto(reply.text, 4)) chunks.push(chunk({ content }));
  reply.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const fragment of splitInto(call.argumentsText, 3)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  chunks.push(chunk({}, finishReason(reply)));
  if (includeUsage) chunks.push(JSON.stringify({ ...base, choices: [], usage: usageJson(usage) }));
  return chunks;
}

/** The JSON of a non-streamed reply. */
export function openAICompletionJson(reply: OutgoingReply, model: string, usage: SimulatedUsage): object {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: reply.text === '' && reply.toolCalls.length > 0 ? null : reply.text,
    refusal: null,
  };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.argumentsText },
    }));
  }
  return {
    id: openAICompletionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
    usage: usageJson(usage),
  };
}

/** An error body as the Chat Completions API sends it. */
export function openAIErrorBody(status: number, message: string, code: string | null = null): object {
  const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code } };
}
