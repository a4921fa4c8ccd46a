import { moduleLogger } from '../core/log.js';
import type { AgentEvent } from './events.js';
import type { LoopDetector } from './loop-detection.js';
import type { LoopState, RunAgentOptions } from './loop-types.js';
import type { Message, TextBlock, Usage } from './messages.js';
import type { Tool, ToolContext } from './tool.js';

const log = moduleLogger('agent/loop');

/** Placeholder for an empty model reply: the APIs refuse empty assistant turns, and the record must say what happened. */
export const EMPTY_REPLY_TEXT = '[empty reply]';

/** Mutable bookkeeping of one running session. */
export interface Session {
  options: RunAgentOptions;
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
  /** Messages already sent to the model: never changed again (append-only context). */
  sentCount: number;
  /** Messages already written to the transcript. */
  transcribedCount: number;
  startedAt: number;
  now: () => number;
}

export function pushMessage(session: Session, message: Message): void {
  session.messages.push(message);
  if (message.role !== 'assistant') return;
  for (const block of message.content) {
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

export function state(session: Session): LoopState {
  return {
    sessionId: session.options.sessionId,
    step: session.steps,
    elapsedMs: session.now() - session.startedAt,
    usage: session.usage,
    costUsd: session.costUsd,
    messages: session.messages,
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

/** Default back-off sleep that wakes early on abort. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Text blocks of a message, joined; handy for hooks. */
export function textOf(message: Message): string {
  return message.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}
