import { moduleLogger } from '../core/log.js';
import { costOf } from './cost.js';
import type { AgentEvent } from './events.js';
import { LoopDetector } from './loop-detection.js';
import type { AgentOutcome, AgentResult, LoopState, RunAgentOptions } from './loop-types.js';
import {
  type AssistantMessage,
  addUsage,
  emptyUsage,
  type Message,
  type ProviderResult,
  type TextBlock,
  type ToolCallBlock,
  type ToolResultBlock,
  type Usage,
} from './messages.js';
import { type Tool, type ToolContext, toolSchema } from './tool.js';
import { runToolCall, toResultBlock } from './tool-runner.js';

export type * from './loop-types.js';

const log = moduleLogger('agent/loop');

/** Placeholder for an empty model reply: the APIs refuse empty assistant turns, and the record must say what happened. */
export const EMPTY_REPLY_TEXT = '[empty reply]';

/** Mutable bookkeeping of one running session. */
interface Session {
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

/** Why the loop ended, decided inside one iteration. */
type Ending = { outcome: AgentOutcome; reason?: string; failure?: AgentResult['failure'] };

/**
 * Runs one agent session: model request, tool calls, results, again, until the model stops (and the
 * `beforeStop` hook agrees), a limit passes, a hook ends it, or the provider fails for good. Context is
 * append-only: each request's messages are the previous request's plus new ones. Never throws on model
 * output; provider failures come back as outcomes.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const session = openSession(options);
  emit(session, { type: 'session.started', model: options.provider.id, tools: [...session.tools.keys()] });
  options.transcript?.write({
    kind: 'system',
    at: iso(session),
    system: options.system,
    tools: [...session.tools.keys()],
  });
  pushMessage(session, { role: 'user', content: [{ type: 'text', text: options.firstMessage }] });
  const timer = setTimeout(() => session.controller.abort(new Error('time limit')), options.limits.maxWallMs);
  const onOuterAbort = () => session.controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let ending: Ending;
  try {
    ending = await drive(session);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
  return finish(session, ending);
}

function openSession(options: RunAgentOptions): Session {
  const now = options.clock ?? Date.now;
  const controller = new AbortController();
  return {
    options,
    tools: new Map(options.tools.map((tool) => [tool.name, tool])),
    toolContext: { ...options.toolContext, signal: controller.signal },
    controller,
    detector: new LoopDetector(options.loopDetection),
    messages: [],
    usage: emptyUsage(),
    costUsd: 0,
    steps: 0,
    stopReturns: 0,
    remindedSteps: false,
    remindedTime: false,
    lastText: '',
    sentCount: 0,
    transcribedCount: 0,
    startedAt: now(),
    now,
  };
}

/** The request/act cycle. Returns how the session ended. */
async function drive(session: Session): Promise<Ending> {
  const { limits, hooks } = session.options;
  const schemas = session.options.tools.map(toolSchema);
  for (;;) {
    const limit = limitReached(session);
    if (limit) return limit;
    const decision = (await hooks?.beforeTurn?.(state(session))) ?? {};
    if (decision.end) return { outcome: 'ended_by_hook', reason: decision.end };
    const notes = [decision.note, ...reminders(session)].filter((note): note is string => Boolean(note));
    if (notes.length) appendNotes(session, notes);
    const result = await requestWithRetry(session, schemas, limits.maxOutputTokens ?? 8192);
    if (!result.ok) return failureEnding(session, result.failure);
    session.steps++;
    recordUsage(session, result.response.usage, result.durationMs);
    const assistant = assistantMessage(result.response.content);
    pushMessage(session, assistant);
    const calls = assistant.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
    if (calls.length === 0) {
      const stop = await stopOrReturn(session);
      if (stop) return stop;
      continue;
    }
    const results = await runCalls(session, calls);
    if (session.controller.signal.aborted) {
      pushMessage(session, { role: 'user', content: results });
      return abortEnding(session);
    }
    pushMessage(session, { role: 'user', content: results });
  }
}

function limitReached(session: Session): Ending | undefined {
  const { limits } = session.options;
  if (session.controller.signal.aborted) return abortEnding(session);
  if (session.now() - session.startedAt >= limits.maxWallMs) {
    return { outcome: 'time_limit', reason: `wall-clock limit of ${limits.maxWallMs} ms reached` };
  }
  if (session.steps >= limits.maxSteps) {
    return { outcome: 'step_limit', reason: `step limit of ${limits.maxSteps} model requests reached` };
  }
  return undefined;
}

function abortEnding(session: Session): Ending {
  const elapsed = session.now() - session.startedAt;
  if (!session.options.signal?.aborted && elapsed >= session.options.limits.maxWallMs - 5) {
    return {
      outcome: 'time_limit',
      reason: `wall-clock limit of ${session.options.limits.maxWallMs} ms reached`,
    };
  }
  const reason = session.options.signal?.reason;
  return {
    outcome: 'aborted',
    reason: reason instanceof Error ? reason.message : String(reason ?? 'aborted'),
  };
}

/** Step and time reminders, each given once, so the model checkpoints before a hard limit. */
function reminders(session: Session): string[] {
  const { limits } = session.options;
  const at = limits.reminderAt ?? 0.8;
  const notes: string[] = [];
  if (!session.remindedSteps && session.steps >= Math.floor(limits.maxSteps * at) && session.steps > 0) {
    session.remindedSteps = true;
    notes.push(
      `You have used ${session.steps} of ${limits.maxSteps} steps. Wrap up now: commit your work and append a progress note.`,
    );
  }
  const elapsed = session.now() - session.startedAt;
  if (!session.remindedTime && elapsed >= limits.maxWallMs * at) {
    session.remindedTime = true;
    const minutesLeft = Math.max(0, Math.round((limits.maxWallMs - elapsed) / 60_000));
    notes.push(
      `About ${minutesLeft} minute(s) of this session remain. Wrap up now: commit your work and append a progress note.`,
    );
  }
  for (const message of notes) emit(session, { type: 'budget.reminder', step: session.steps, message });
  return notes;
}

/**
 * Adds harness notes to the conversation without touching anything already sent: to the pending user
 * message when the last message is one we have not sent yet, else as a new user message.
 */
function appendNotes(session: Session, notes: string[]): void {
  const text = notes.map((note) => `[harness] ${note}`).join('\n');
  const last = session.messages.at(-1);
  if (last?.role === 'user' && session.messages.length > session.sentCount) {
    last.content.push({ type: 'text', text });
    return;
  }
  pushMessage(session, { role: 'user', content: [{ type: 'text', text }] });
}

type TimedResult = ProviderResult & { durationMs: number };

/** One model request, retrying `retryable` failures with exponential back-off (on top of the SDK's retries). */
async function requestWithRetry(
  session: Session,
  schemas: ReturnType<typeof toolSchema>[],
  maxTokens: number,
): Promise<TimedResult> {
  const { provider, retry } = session.options;
  const maxRetries = retry?.maxRetries ?? 2;
  const sleep = session.options.sleep ?? abortableSleep;
  flushTranscript(session);
  session.sentCount = session.messages.length;
  for (let attempt = 0; ; attempt++) {
    const messages = session.messages.slice();
    emit(session, {
      type: 'model.request',
      step: session.steps + 1,
      messages: messages.length,
      bytes: Buffer.byteLength(JSON.stringify(messages)),
    });
    const startedAt = session.now();
    const result = await provider.complete({
      system: session.options.system,
      messages,
      tools: schemas,
      maxTokens,
      signal: session.controller.signal,
      onTextDelta: (text) => emit(session, { type: 'text.delta', text }),
    });
    const durationMs = session.now() - startedAt;
    if (result.ok) return { ...result, durationMs };
    const willRetry = result.failure.kind === 'retryable' && attempt < maxRetries;
    emit(session, {
      type: 'model.error',
      step: session.steps + 1,
      kind: result.failure.kind,
      message: result.failure.message,
      ...(result.failure.retryAfterMs === undefined ? {} : { retryAfterMs: result.failure.retryAfterMs }),
      willRetry,
    });
    if (!willRetry) return { ...result, durationMs };
    await sleep((retry?.baseDelayMs ?? 1000) * 2 ** attempt, session.controller.signal);
    if (session.controller.signal.aborted) return { ...result, durationMs };
  }
}

function failureEnding(session: Session, failure: NonNullable<AgentResult['failure']>): Ending {
  if (failure.kind === 'aborted' || session.controller.signal.aborted) return abortEnding(session);
  const outcome: AgentOutcome =
    failure.kind === 'rate_limited'
      ? 'rate_limited'
      : failure.kind === 'context_overflow'
        ? 'context_overflow'
        : 'provider_error';
  return { outcome, reason: failure.message, failure };
}

function recordUsage(session: Session, usage: Usage, durationMs: number): void {
  const cost = costOf(session.options.provider.id, usage, session.options.prices);
  session.usage = addUsage(session.usage, usage);
  session.costUsd = session.costUsd === null || cost === null ? null : session.costUsd + cost;
  emit(session, { type: 'model.usage', step: session.steps, usage, costUsd: cost, durationMs });
}

function assistantMessage(content: AssistantMessage['content']): AssistantMessage {
  const kept = content.filter((block) => block.type !== 'text' || block.text.length > 0);
  if (kept.length === 0) return { role: 'assistant', content: [{ type: 'text', text: EMPTY_REPLY_TEXT }] };
  return { role: 'assistant', content: kept };
}

/** The model stopped calling tools: ask the caller's completion checks whether it may. */
async function stopOrReturn(session: Session): Promise<Ending | undefined> {
  const maxReturns = session.options.limits.maxStopReturns ?? 3;
  const decision = (await session.options.hooks?.beforeStop?.(state(session))) ?? { stop: true };
  if (decision.stop) return { outcome: 'completed' };
  if (session.stopReturns >= maxReturns) {
    return {
      outcome: 'completed',
      reason: `completion checks still failing after ${maxReturns} returns: ${decision.message}`,
    };
  }
  session.stopReturns++;
  emit(session, {
    type: 'stop.blocked',
    step: session.steps,
    reason: decision.message,
    attempt: session.stopReturns,
  });
  pushMessage(session, { role: 'user', content: [{ type: 'text', text: `[harness] ${decision.message}` }] });
  return undefined;
}

/** Runs the calls of one reply in order; a denied or failed call still gets a result block. */
async function runCalls(session: Session, calls: ToolCallBlock[]): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    if (session.controller.signal.aborted) {
      results.push({
        type: 'tool_result',
        toolCallId: call.id,
        content: 'Not run: the session is ending.',
        isError: true,
      });
      continue;
    }
    results.push(await runOneCall(session, call));
  }
  return results;
}

async function runOneCall(session: Session, call: ToolCallBlock): Promise<ToolResultBlock> {
  const step = session.steps;
  emit(session, { type: 'tool.started', step, callId: call.id, name: call.name, arguments: call.arguments });
  const denial = await denialFor(session, call);
  if (denial) {
    emit(session, { type: 'tool.denied', step, callId: call.id, name: call.name, reason: denial });
    return { type: 'tool_result', toolCallId: call.id, content: `Refused: ${denial}`, isError: true };
  }
  const startedAt = session.now();
  const run = await runToolCall(
    call,
    session.tools,
    session.toolContext,
    session.options.toolOutputLimitBytes,
  );
  await session.options.hooks?.afterToolCall?.(call, run.output, state(session));
  emit(session, {
    type: 'tool.ended',
    step,
    callId: call.id,
    name: call.name,
    isError: run.output.isError === true,
    durationMs: session.now() - startedAt,
    outputBytes: Buffer.byteLength(run.output.content),
    truncated: run.truncated,
  });
  return toResultBlock(call, run);
}

/** Loop detection first (cheap, harness-wide), then the caller's policy. */
async function denialFor(session: Session, call: ToolCallBlock): Promise<string | undefined> {
  const verdict = session.detector.observe(call);
  if (verdict.kind !== 'ok') {
    emit(session, {
      type: 'loop.detected',
      step: session.steps,
      kind: verdict.detectedKind,
      detail: verdict.detail,
    });
    if (verdict.kind === 'deny') return verdict.detail;
  }
  const decision = await session.options.hooks?.beforeToolCall?.(call, state(session));
  return decision && !decision.allow ? decision.reason : undefined;
}

function finish(session: Session, ending: Ending): AgentResult {
  flushTranscript(session);
  const durationMs = session.now() - session.startedAt;
  emit(session, {
    type: 'session.ended',
    outcome: ending.outcome,
    steps: session.steps,
    usage: session.usage,
    costUsd: session.costUsd,
    durationMs,
    ...(ending.reason === undefined ? {} : { error: ending.reason }),
  });
  log.debug(
    { sessionId: session.options.sessionId, outcome: ending.outcome, steps: session.steps },
    'session ended',
  );
  return {
    outcome: ending.outcome,
    ...(ending.reason === undefined ? {} : { reason: ending.reason }),
    ...(ending.failure === undefined ? {} : { failure: ending.failure }),
    messages: session.messages,
    steps: session.steps,
    usage: session.usage,
    costUsd: session.costUsd,
    durationMs,
    lastText: session.lastText,
  };
}

function pushMessage(session: Session, message: Message): void {
  session.messages.push(message);
  if (message.role !== 'assistant') return;
  for (const block of message.content) {
    if (block.type === 'text' && block.text !== EMPTY_REPLY_TEXT) {
      session.lastText = block.text;
      emit(session, { type: 'text', step: session.steps, text: block.text });
    }
  }
}

function flushTranscript(session: Session): void {
  const transcript = session.options.transcript;
  if (!transcript) return;
  for (; session.transcribedCount < session.messages.length; session.transcribedCount++) {
    const message = session.messages[session.transcribedCount] as Message;
    transcript.write({ kind: 'message', at: iso(session), message });
  }
}

function state(session: Session): LoopState {
  return {
    sessionId: session.options.sessionId,
    step: session.steps,
    elapsedMs: session.now() - session.startedAt,
    usage: session.usage,
    costUsd: session.costUsd,
    messages: session.messages,
  };
}

type EventBody = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, 'at' | 'sessionId'>
    : never
  : never;

/** Sends an event to the sink and the transcript; a throwing sink is logged, never fatal. */
function emit(session: Session, body: EventBody): void {
  const event = { ...body, at: iso(session), sessionId: session.options.sessionId } as AgentEvent;
  if (event.type !== 'text.delta') session.options.transcript?.write({ kind: 'event', at: event.at, event });
  try {
    session.options.sink?.(event);
  } catch (error) {
    log.warn({ err: error, type: event.type }, 'event sink threw; event dropped');
  }
}

function iso(session: Session): string {
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
