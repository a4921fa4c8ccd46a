import { randomBytes } from 'node:crypto';
import { FAKE_SIGNATURE, type OutgoingReply, type SimulatedUsage, splitInto } from './reply.js';

/** One server-sent event. */
export interface SseEvent {
  event?: string;
  data: string;
}

function usageFields(usage: SimulatedUsage) {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
  };
}

function stopReason(reply: OutgoingReply): string {
  if (reply.stop) return reply.stop;
  return reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

function event(type: string, payload: Record<string, unknown>): SseEvent {
  return { event: type, data: JSON.stringify({ type, ...payload }) };
}

/** A message id in the API's style. */
export function anthropicMessageId(): string {
  return `msg_${randomBytes(12).toString('hex')}`;
}

/**
 * The SSE events of a streamed reply, in the order the Messages API sends them: message_start, a ping,
 * per block content_block_start / deltas / content_block_stop, message_delta (stop reason and usage),
 * message_stop. Text and tool arguments are split over several deltas.
 */
export function anthropicStreamEvents(
  reply: OutgoingReply,
  model: string,
  usage: SimulatedUsage,
): SseEvent[] {
  const events: SseEvent[] = [
    event('message_start', {
      message: {
        id: anthropicMessageId(),
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usageFields(usage), output_tokens: 1 },
      },
    }),
    event('ping', {}),
  ];
  let index = 0;
  if (reply.thinking !== undefined) {
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }),
    );
    for (const thinking of splitInto(reply.thinking, 3)) {
      events.push(event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }));
    }
    events.push(
      event('content_block_delta', { index, delta: { type: 'signature_delta', signature: FAKE_SIGNATURE } }),
      event('content_block_stop', { index }),
    );
    index++;
  }
  if (reply.text !== '') {
    events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const text of splitInto(reply.text, 4)) {
      events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    }
    events.push(event('content_block_stop', { index }));
    index++;
  }
  for (const call of reply.toolCalls) {
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    );
    for (const partial_json of ['', ...splitInto(call.argumentsText, 3)]) {
      events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    }
    events.push(event('content_block_stop', { index }));
    index++;
  }
  events.push(
    event('message_delta', {
      delta: { stop_reason: stopReason(reply), stop_sequence: null },
      usage: { ...usageFields(usage), output_tokens: usage.output },
    }),
    event('message_stop', {}),
  );
  return events;
}

/**
 * The JSON of a non-streamed reply. Tool input is the decoded object; argument text that is not a JSON
 * object (the malformed-JSON fault) is sent as a string, the nearest a JSON body can come to it.
 */
export function anthropicMessageJson(reply: OutgoingReply, model: string, usage: SimulatedUsage): object {
  const content: object[] = [];
  if (reply.thinking !== undefined) {
    content.push({ type: 'thinking', thinking: reply.thinking, signature: FAKE_SIGNATURE });
  }
  if (reply.text !== '') content.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls) {
    // Cut at max_tokens, the API's non-streamed tool input is what parsed so far: here, nothing.
    let input: unknown = reply.stop === 'max_tokens' ? {} : call.argumentsText;
    try {
      if (reply.stop !== 'max_tokens') input = JSON.parse(call.argumentsText);
    } catch {
      // stays a string
    }
    content.push({ type: 'tool_use', id: call.id, name: call.name, input });
  }
  return {
    id: anthropicMessageId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason(reply),
    stop_sequence: null,
    usage: { ...usageFields(usage), output_tokens: usage.output },
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** An error body as the Messages API sends it; the type follows the status. */
export function anthropicErrorBody(status: number, message: string): object {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message } };
}
