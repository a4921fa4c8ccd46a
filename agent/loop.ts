import { moduleLogger } from '../core/log.js';
import { costOf } from './cost.js';
import { runCalls } from './loop-calls.js';
import { LoopDetector } from './loop-detection.js';
import {
  abortableSleep,
  EMPTY_REPLY_TEXT,
  emit,
  flushTranscript,
  iso,
  pushMessage,
  type Session,
  state,
} from './loop-session.js';
import type { AgentOutcome, AgentResult, RunAgentOptions } from './loop-types.js';
import {
  type AssistantMessage,
  addUsage,
  emptyUsage,
  type ProviderResult,
  type ToolCallBlock,
  type Usage,
} from './messages.js';
import { toolSchema } from './tool.js';

export { abortableSleep, EMPTY_REPLY_TEXT, textOf } from './loop-session.js';
export type * from './loop-types.js';

const log = moduleLogger('agent/loop');

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
