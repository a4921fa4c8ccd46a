import { randomBytes } from 'node:crypto';
import { estimateTokens } from './prefix.js';
import type { Fault, PolicyReply, ScriptedConversation, WireFormat } from './types.js';

/** One tool call ready to send: the argument text goes on the wire as is. */
export interface OutgoingToolCall {
  id: string;
  name: string;
  argumentsText: string;
}

/** A reply ready to render in either wire format. */
export interface OutgoingReply {
  text: string;
  toolCalls: OutgoingToolCall[];
  /** Why it ended when not the natural way: cut at the output limit, or declined. */
  stop?: 'max_tokens' | 'refusal';
  /** Reasoning: Anthropic thinking (signed), OpenAI reasoning tokens only. */
  thinking?: string;
  reasoningTokens?: number;
  /** The refusal text (OpenAI `refusal`). */
  refusal?: string;
}

/** A made-up thinking signature (the real one is opaque to clients too). */
export const FAKE_SIGNATURE = 'c2NyaXB0ZWQtdGhpbmtpbmctc2lnbmF0dXJl';

/** The reply cut at the output limit: text halved, the last tool call's arguments cut before their end. */
export function truncatedReply(reply: OutgoingReply): OutgoingReply {
  const calls = reply.toolCalls.map((call) => ({ ...call }));
  const last = calls.at(-1);
  if (last)
    last.argumentsText = last.argumentsText.slice(0, Math.max(1, Math.floor(last.argumentsText.length / 2)));
  const text = calls.length
    ? reply.text
    : reply.text.slice(0, Math.max(1, Math.floor(reply.text.length / 2)));
  return { text, toolCalls: calls, stop: 'max_tokens' };
}

/** Token counts the server reports for one request. */
export interface SimulatedUsage {
  /** Uncached prompt tokens (Anthropic `input_tokens`); for OpenAI the prompt total is this plus `cacheRead`. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** Argument text that no JSON parser accepts. */
export const MALFORMED_ARGUMENTS = '{"path": "src/index.ts", "content": "unterminated';

/** The tool name the `unknown_tool` fault calls. */
export const UNKNOWN_TOOL_NAME = 'no_such_tool';

/** A tool call id in the style of each API. */
export function toolCallId(format: WireFormat): string {
  const suffix = randomBytes(12).toString('hex');
  return format === 'anthropic' ? `toolu_${suffix}` : `call_${suffix}`;
}

/** The outgoing form of a policy's reply (ids generated here). */
export function outgoingReply(
  reply: Exclude<PolicyReply, { fault: Fault }>,
  format: WireFormat,
): OutgoingReply {
  return {
    text: reply.text ?? '',
    toolCalls: (reply.toolCalls ?? []).map((call) => ({
      id: toolCallId(format),
      name: call.name,
      argumentsText: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    })),
  };
}

/** The reply a content fault stands for, or undefined when the fault is not about content. */
export function faultReply(fault: Fault, conversation: ScriptedConversation): OutgoingReply | undefined {
  const format = conversation.format;
  switch (fault.kind) {
    case 'malformed_tool_json':
      return {
        text: '',
        toolCalls: [
          {
            id: toolCallId(format),
            name: conversation.toolNames[0] ?? 'write',
            argumentsText: MALFORMED_ARGUMENTS,
          },
        ],
      };
    case 'unknown_tool':
      return {
        text: '',
        toolCalls: [{ id: toolCallId(format), name: UNKNOWN_TOOL_NAME, argumentsText: '{}' }],
      };
    case 'empty':
      return { text: '', toolCalls: [] };
    case 'reasoning_only':
      return {
        text: '',
        toolCalls: [],
        stop: 'max_tokens',
        thinking: 'Let me consider every possible approach in detail before acting…',
        reasoningTokens: fault.reasoningTokens ?? 4_000,
      };
    case 'refusal':
      return {
        text: '',
        toolCalls: [],
        stop: 'refusal',
        refusal: fault.message ?? "I'm sorry, but I can't help with that.",
      };
    default:
      return undefined;
  }
}

/** Output tokens of a reply: its text, tool names and argument text, a quarter byte each, at least 1. */
export function outputTokens(reply: OutgoingReply): number {
  if (reply.reasoningTokens) return reply.reasoningTokens;
  let bytes = Buffer.byteLength(reply.text);
  for (const call of reply.toolCalls)
    bytes += Buffer.byteLength(call.name) + Buffer.byteLength(call.argumentsText);
  return Math.max(1, estimateTokens(bytes));
}

/** Splits text into up to `pieces` fragments of similar size (for streamed deltas). */
export function splitInto(text: string, pieces: number): string[] {
  if (text === '') return [];
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}
