import { moduleLogger } from '../core/log.js';
import { abortableSleep } from '../core/retry.js';
import { redactNeedles } from '../core/secrets.js';
import type { AgentEvent } from './events.js';
import type { LoopDetector } from './loop-detection.js';
import type { LoopState, RunAgentOptions } from './loop-types.js';
import type { Message, TextBlock, Usage } from './messages.js';
import type { ModelPrice } from './models.js';
import type { Tool, ToolContext } from './tool.js';

const log = moduleLogger('agent/loop');

/** Placeholder for an empty model reply: the APIs refuse empty assistant turns, and the record must say what happened. */
export const EMPTY_REPLY_TEXT = '[empty reply]';

/** Prefix of every text the harness (not the user, not a tool) puts into the conversation. */
export const HARNESS_PREFIX = '[harness]';

/** Mutable bookkeeping of one running session. */
export interface Session {
  options: RunAgentOptions;
  /** The system prompt as sent (secrets redacted). */
  system: string;
  /** The model's price; null when unknown (the session's cost is then unknown too). */
  price: ModelPrice | null;
  tools: Map<string, Tool>;
  toolContext: ToolContext;
  controller: AbortController;
  detector: LoopDetector;
  messages: Message[];
  usage: Usage;
  costUsd: number | null;
  steps: number;
  stopReturns: number;
  remindedSteps: boolean;
  remindedTime: boolean;
  lastText: string;
  /** Messages already sent to the model: never changed again (append-only context), elision aside. */
  sentCount: number;
  /** Messages already written to the transcript. */
  transcribedCount: number;
  startedAt: number;
  now: () => number;
  /** The model's context window and the largest reply to ask for. */
  windowTokens: number;
  /** Estimated tokens of the system prompt and tool schemas. */
  fixedTokens: number;
  maxOutputTokens: number;
  /** Prompt tokens of the last request as the provider reported them, plus its reply's (0 until the first). */
  reportedTokens: number;
  /** Messages the reported count covers (the last request plus its reply). */
  reportedCount: number;
  /** Screenshots reach the model (false once it rejected an image, or it has no vision). */
  vision: boolean;
  /** Replies cut at the output limit in a row. */
  truncations: number;
  /** Set once an empty reply was nudged; cleared by any reply with content. */
  nudged: boolean;
  /** True while the pending user message carries a harness note; copied to `noteSent` when sent. */
  notePending: boolean;
  noteSent: boolean;
  /** Paused turns (`pause_turn`) in a row. */
  pauses: number;
  /** Tool names by call id, to say where a redacted secret was. */
  callNames: Map<string, string>;
  /** Secret values and their base64 forms, longest first. */
  needles: readonly string[];
}

/** Redacts secrets from `text` (reporting where), returning the text to send. */
export function scrub(session: Session, text: string, where: string): string {
  if (session.needles.length === 0) return text;
  const { text: clean, count } = redactNeedles(text, session.needles);
  if (count > 0) emit(session, { type: 'secret.redacted', step: session.steps, where, count });
  return clean;
}

/**
 * Appends a message. User messages are scanned for secrets before they enter the conversation, so what is
 * sent (and cached as the prefix) never carries them; assistant text is reported as `text` events.
 */
export function pushMessage(session: Session, message: Message): void {
  if (message.role === 'user') {
    const first = session.messages.length === 0;
    for (const block of message.content) {
      if (block.type === 'text') {
        block.text = scrub(session, block.text, first ? 'first_message' : 'note');
      } else {
        const tool = session.callNames.get(block.toolCallId) ?? 'unknown';
        block.content = scrub(session, block.content, `tool_result:${tool}`);
      }
    }
  }
  session.messages.push(message);
  if (message.role !== 'assistant') return;
  for (const block of message.content) {
    if (block.type === 'tool_call') session.callNames.set(block.id, block.name);
    if (block.type === 'text' && block.text !== EMPTY_REPLY_TEXT) {
      session.lastText = block.text;
      emit(session, { type: 'text', step: session.steps, text: block.text });
    }
  }
}

export function flushTranscript(session: Session): void {
  const transcript = session.options.transcript;
  if (!transcript) return;
  for (; session.transcribedCount < session.messages.length; session.transcribedCount++) {
    const message = session.messages[session.transcribedCount] as Message;
    transcript.write({ kind: 'message', at: iso(session), message });
  }
}

/** Rough tokens of some JSON-able value: a third of its bytes (dense JSON and code run near 3 bytes a token). */
export function estimateTokens(value: unknown): number {
  return Math.ceil(Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value)) / 3);
}

/** What an image costs a provider, roughly (a 1,000 × 1,000 screenshot is about 1,300 Anthropic tokens). */
export const IMAGE_TOKENS = 1_600;

/** Rough tokens of messages: their text by bytes, each image at a flat rate (its base64 is not text). */
function estimateMessageTokens(messages: readonly Message[]): number {
  let images = 0;
  const text = JSON.stringify(messages, (key, value: unknown) => {
    if (key !== 'images' || !Array.isArray(value)) return value;
    images += value.length;
    return undefined;
  });
  return estimateTokens(text) + images * IMAGE_TOKENS;
}

/**
 * Tokens the next request will carry: the provider's own count for the conversation up to the last reply,
 * plus an estimate of what was added since; before the first reply, an estimate of the whole request.
 */
export function usedTokens(session: Session): number {
  if (session.reportedTokens === 0) return session.fixedTokens + estimateMessageTokens(session.messages);
  return session.reportedTokens + estimateMessageTokens(session.messages.slice(session.reportedCount));
}

export function state(session: Session): LoopState {
  const used = usedTokens(session);
  return {
    sessionId: session.options.sessionId,
    step: session.steps,
    elapsedMs: session.now() - session.startedAt,
    usage: session.usage,
    costUsd: session.costUsd,
    messages: session.messages,
    context: { usedTokens: used, windowTokens: session.windowTokens, share: used / session.windowTokens },
  };
}

export type EventBody = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, 'at' | 'sessionId'>
    : never
  : never;

/** Sends an event to the sink and the transcript; a throwing sink is logged, never fatal. */
export function emit(session: Session, body: EventBody): void {
  const event = { ...body, at: iso(session), sessionId: session.options.sessionId } as AgentEvent;
  if (event.type !== 'text.delta') session.options.transcript?.write({ kind: 'event', at: event.at, event });
  try {
    session.options.sink?.(event);
  } catch (error) {
    log.warn({ err: error, type: event.type }, 'event sink threw; event dropped');
  }
}

export function iso(session: Session): string {
  return new Date(session.now()).toISOString();
}

/** Default back-off sleep that wakes early on abort (kept here for callers of the loop's API). */
export { abortableSleep };

/** Text blocks of a message, joined; handy for hooks. */
export function textOf(message: Message): string {
  return message.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}
