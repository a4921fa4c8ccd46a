/**
 * A session transcript (JSONL, agent/transcript.ts) as lines a person reads: the model's text, its tool calls
 * with short arguments, the first line of each result, and what the harness said or stopped. Everything the
 * model or the workspace wrote is escaped for the terminal.
 */
import type { AgentEvent } from '../agent/events.js';
import type { Message } from '../agent/messages.js';
import type { TranscriptLine } from '../agent/transcript.js';
import { formatDuration, formatMoney } from './output.js';
import { oneLine } from './terminal-text.js';

/** Characters of one argument value, of all arguments together, of a result's first line and of a text. */
const ARG_CHARS = 60;
const ARGS_CHARS = 160;
const RESULT_CHARS = 160;
const TEXT_CHARS = 300;

/** `{command: "npm test", timeout_ms: 5000}`: each value as JSON, cut. */
export function shortArguments(args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([key, value]) => {
    const json = JSON.stringify(value) ?? String(value);
    return `${key}: ${json.length > ARG_CHARS ? `${json.slice(0, ARG_CHARS - 1)}…` : json}`;
  });
  return oneLine(`{${parts.join(', ')}}`, ARGS_CHARS);
}

/** The first line of a tool result that says something. */
function firstLine(content: string): string {
  const line = content.split('\n').find((candidate) => candidate.trim() !== '') ?? '(empty)';
  return oneLine(line, RESULT_CHARS);
}

/**
 * Turns transcript lines into readable lines, in order. Stateful: a result is named after the tool call it
 * answers, and the first user message is the harness's brief.
 */
export class TranscriptFormatter {
  private readonly toolNames = new Map<string, string>();
  private briefSeen = false;

  /** The readable lines of one transcript line (none for what says nothing new: deltas, requests, usage). */
  lines(line: TranscriptLine): string[] {
    if (line.kind === 'system')
      return [`system prompt, ${line.tools.length} tools: ${line.tools.join(', ')}`];
    if (line.kind === 'message') return this.message(line.message);
    const event = eventLine(line.event);
    return event ? [event] : [];
  }

  private message(message: Message): string[] {
    if (message.role === 'assistant') {
      return message.content.flatMap((block) => {
        if (block.type === 'text')
          return block.text.trim() ? [`model: ${oneLine(block.text, TEXT_CHARS)}`] : [];
        if (block.type === 'tool_call') {
          this.toolNames.set(block.id, block.name);
          const args = block.invalidArguments
            ? `(invalid JSON: ${oneLine(block.invalidArguments, ARG_CHARS)})`
            : shortArguments(block.arguments);
          return [`→ ${block.name} ${args}`];
        }
        return [];
      });
    }
    return message.content.flatMap((block) => {
      if (block.type === 'tool_result') {
        const name = this.toolNames.get(block.toolCallId) ?? 'tool';
        return [`← ${name}${block.isError ? ' error' : ''}: ${firstLine(block.content)}`];
      }
      const label = this.briefSeen ? 'harness' : 'brief';
      this.briefSeen = true;
      return block.text.trim() ? [`${label}: ${oneLine(block.text, TEXT_CHARS)}`] : [];
    });
  }
}

/** The agent events worth a line of their own (the rest are in the messages, or are bookkeeping). */
function eventLine(event: AgentEvent): string | null {
  switch (event.type) {
    case 'model.error':
      return `model error (${event.kind}): ${oneLine(event.message)}${event.willRetry ? ' — retrying' : ''}`;
    case 'model.truncated':
      return `reply cut at the output limit (${event.maxTokens} tokens): its ${event.toolCalls} tool call(s) were not run`;
    case 'model.refused':
      return `model refused: ${oneLine(event.message)}`;
    case 'tool.denied':
      return `${event.name} denied: ${oneLine(event.reason)}`;
    case 'loop.detected':
      return `loop detected (${event.kind}): ${oneLine(event.detail)}`;
    case 'budget.reminder':
      return `harness: ${oneLine(event.message)}`;
    case 'stop.blocked':
      return `sent back (${event.attempt}): ${oneLine(event.reason)}`;
    case 'sandbox.egress_refused':
      return `network refused (${event.source}): ${event.host}:${event.port} — ${oneLine(event.reason)}`;
    case 'context.elided':
      return `old results elided to stay in the window (${event.usedTokens} of ${event.windowTokens} tokens)`;
    case 'session.ended':
      return `session ended ${event.outcome} after ${event.steps} model request(s), ${formatDuration(event.durationMs)}, ${formatMoney(event.costUsd)}${event.error ? `: ${oneLine(event.error)}` : ''}`;
    default:
      return null;
  }
}
