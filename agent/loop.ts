import { moduleLogger } from '../core/log.js';
import { outgoingNeedles } from '../core/secrets.js';
import { costAtPrice, priceForProvider } from './cost.js';
import { runCalls } from './loop-calls.js';
import { elideOldResults } from './loop-context.js';
import { LoopDetector } from './loop-detection.js';
import {
  addNote,
  handleEmpty,
  handlePause,
  handleRefusal,
  handleTruncated,
  isEmptyReply,
  type ReplyAction,
} from './loop-replies.js';
import { replyBudget, requestWithRetry } from './loop-request.js';
import {
  EMPTY_REPLY_TEXT,
  emit,
  estimateTokens,
  flushTranscript,
  iso,
  pushMessage,
  type Session,
  scrub,
  state,
  usedTokens,
} from './loop-session.js';
import type { AgentOutcome, AgentResult, RunAgentOptions } from './loop-types.js';
import {
  type AssistantMessage,
  addUsage,
  emptyUsage,
  type ModelResponse,
  type ToolCallBlock,
} from './messages.js';
import type { ModelPrice } from './models.js';
import { toolSchema } from './tool.js';

export { abortableSleep, EMPTY_REPLY_TEXT, textOf } from './loop-session.js';
export type * from './loop-types.js';

const log = moduleLogger('agent/loop');

/** Context window assumed for a provider without settings (tests' custom providers). */
const DEFAULT_WINDOW_TOKENS = 200_000;
/** Output limit per reply for a provider without settings. */
const DEFAULT_MAX_OUTPUT_TOKENS = 8_192;

/** Why the loop ended, decided inside one iteration. */
type Ending = { outcome: AgentOutcome; reason?: string; failure?: AgentResult['failure'] };

/**
 * Runs one agent session: model request, tool calls, results, again, until the model stops (and the
 * `beforeStop` hook agrees), a limit passes, a hook ends it, the model refuses, or the provider fails for
 * good. The stop reason of every reply is read: a reply cut at the output limit is never taken as a stop.
 * Context is append-only (old results of elidable tools aside, see loop-context.ts) and budgeted against
 * the model's window from the provider's reported usage. Never throws on model output.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const session = openSession(options);
  emit(session, { type: 'session.started', model: options.provider.id, tools: [...session.tools.keys()] });
  session.system = scrub(session, options.system, 'system');
  options.transcript?.write({
    kind: 'system',
    at: iso(session),
    system: session.system,
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
  const settings = options.provider.settings;
  const price = priceForProvider(options.provider, options.prices);
  const session: Session = {
    options,
    system: options.system,
    price,
    tools: new Map(options.tools.map((tool) => [tool.name, tool])),
    toolContext: { ...options.toolContext, signal: controller.signal },
    controller,
    detector: new LoopDetector(options.loopDetection),
    messages: [],
    usage: emptyUsage(),
    costUsd: price ? 0 : null,
    steps: 0,
    stopReturns: 0,
    remindedSteps: false,
    remindedTime: false,
    lastText: '',
    sentCount: 0,
    transcribedCount: 0,
    startedAt: now(),
    now,
    windowTokens: settings?.contextWindow ?? DEFAULT_WINDOW_TOKENS,
    fixedTokens: estimateTokens(options.system) + estimateTokens(options.tools.map(toolSchema)),
    maxOutputTokens: options.limits.maxOutputTokens ?? settings?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    reportedTokens: 0,
    reportedCount: 0,
    vision: settings?.vision ?? true,
    truncations: 0,
    nudged: false,
    notePending: false,
    noteSent: false,
    pauses: 0,
    callNames: new Map(),
    needles: outgoingNeedles(options.secrets ?? []),
  };
  return session;
}

/** The request/act cycle. Returns how the session ended. */
async function drive(session: Session): Promise<Ending> {
  const { hooks } = session.options;
  const schemas = session.options.tools.map(toolSchema);
  for (;;) {
    const limit = limitReached(session);
    if (limit) return limit;
    const decision = (await hooks?.beforeTurn?.(state(session))) ?? {};
    if (decision.end) return { outcome: 'ended_by_hook', reason: decision.end };
    for (const note of [decision.note, ...reminders(session)]) if (note) addNote(session, note);
    elideOldResults(session);
    const maxTokens = replyBudget(session);
    if (maxTokens === undefined) {
      return {
        outcome: 'context_overflow',
        reason: `the context window is full: about ${usedTokens(session)} of ${session.windowTokens} tokens in use`,
      };
    }
    const result = await requestWithRetry(session, schemas, maxTokens);
    if (!result.ok) return failureEnding(session, result.failure);
    session.steps++;
    recordUsage(session, result.response, result.durationMs);
    const action = await handleReply(session, result.response, maxTokens);
    if (action?.kind === 'end') return { outcome: action.outcome, reason: action.reason };
    if (session.controller.signal.aborted) return abortEnding(session);
  }
}

/** Acts on one reply by its stop reason; undefined (or `continue`) means request again. */
async function handleReply(
  session: Session,
  response: ModelResponse,
  maxTokens: number,
): Promise<ReplyAction | undefined> {
  const assistant = assistantMessage(response.content);
  pushMessage(session, assistant);
  session.reportedCount = session.messages.length;
  const calls = assistant.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
  if (response.stopReason === 'refusal') return handleRefusal(session, response);
  if (response.stopReason === 'pause_turn') return handlePause(session);
  session.pauses = 0;
  if (isEmptyReply(response.content)) {
    const nudge = handleEmpty(session, response);
    if (nudge) return nudge;
    if (response.stopReason === 'max_tokens') return handleTruncated(session, calls, maxTokens);
    return stopOrReturn(session);
  }
  session.nudged = false;
  if (response.stopReason === 'max_tokens') return handleTruncated(session, calls, maxTokens);
  session.truncations = 0;
  if (calls.length === 0) return stopOrReturn(session);
  const results = await runCalls(session, calls);
  pushMessage(session, { role: 'user', content: results });
  return undefined;
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
  const wrapUp = limits.wrapUp ?? 'commit your work and append a progress note.';
  const notes: string[] = [];
  if (!session.remindedSteps && session.steps >= Math.floor(limits.maxSteps * at) && session.steps > 0) {
    session.remindedSteps = true;
    notes.push(`You have used ${session.steps} of ${limits.maxSteps} steps. Wrap up now: ${wrapUp}`);
  }
  const elapsed = session.now() - session.startedAt;
  if (!session.remindedTime && elapsed >= limits.maxWallMs * at) {
    session.remindedTime = true;
    const minutesLeft = Math.max(0, Math.round((limits.maxWallMs - elapsed) / 60_000));
    notes.push(`About ${minutesLeft} minute(s) of this session remain. Wrap up now: ${wrapUp}`);
  }
  for (const message of notes) emit(session, { type: 'budget.reminder', step: session.steps, message });
  return notes;
}

/**
 * How a request that failed for good ends the session: a rate limit (or an overload that outlasted the
 * retries) pauses the run; an overflow checkpoints; everything else is a provider error whose failure kind
 * tells the run whether to fail at once (quota, key, model) or count it.
 */
function failureEnding(session: Session, failure: NonNullable<AgentResult['failure']>): Ending {
  if (failure.kind === 'aborted' || session.controller.signal.aborted) return abortEnding(session);
  const outcome: AgentOutcome =
    failure.kind === 'rate_limited' || failure.kind === 'overloaded'
      ? 'rate_limited'
      : failure.kind === 'context_overflow'
        ? 'context_overflow'
        : 'provider_error';
  return { outcome, reason: failure.message, failure };
}

function recordUsage(session: Session, response: ModelResponse, durationMs: number): void {
  const { usage } = response;
  const price: ModelPrice | null = session.price;
  const cost = price ? costAtPrice(price, usage) : null;
  session.usage = addUsage(session.usage, usage);
  session.costUsd = session.costUsd === null || cost === null ? null : session.costUsd + cost;
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  // A server that reports no usage leaves the estimate in charge.
  if (prompt > 0) session.reportedTokens = prompt + usage.outputTokens;
  emit(session, { type: 'model.usage', step: session.steps, usage, costUsd: cost, durationMs });
}

/** The reply as a message; an empty one says so (the APIs refuse empty assistant turns). */
function assistantMessage(content: AssistantMessage['content']): AssistantMessage {
  const kept = content.filter((block) => block.type !== 'text' || block.text.length > 0);
  if (!kept.some((block) => block.type !== 'thinking')) {
    return { role: 'assistant', content: [...kept, { type: 'text', text: EMPTY_REPLY_TEXT }] };
  }
  return { role: 'assistant', content: kept };
}

/** The model stopped calling tools: ask the caller's completion checks whether it may. */
async function stopOrReturn(session: Session): Promise<ReplyAction | undefined> {
  const maxReturns = session.options.limits.maxStopReturns ?? 3;
  const decision = (await session.options.hooks?.beforeStop?.(state(session))) ?? { stop: true };
  if (decision.stop) return { kind: 'end', outcome: 'completed', reason: '' };
  if (session.stopReturns >= maxReturns) {
    return {
      kind: 'end',
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
  addNote(session, decision.message);
  return undefined;
}

function finish(session: Session, ending: Ending): AgentResult {
  flushTranscript(session);
  const durationMs = session.now() - session.startedAt;
  const reason = ending.reason === '' ? undefined : ending.reason;
  emit(session, {
    type: 'session.ended',
    outcome: ending.outcome,
    steps: session.steps,
    usage: session.usage,
    costUsd: session.costUsd,
    durationMs,
    ...(reason === undefined ? {} : { error: reason }),
  });
  log.debug(
    { sessionId: session.options.sessionId, outcome: ending.outcome, steps: session.steps },
    'session ended',
  );
  return {
    outcome: ending.outcome,
    ...(reason === undefined ? {} : { reason }),
    ...(ending.failure === undefined ? {} : { failure: ending.failure }),
    messages: session.messages,
    steps: session.steps,
    usage: session.usage,
    costUsd: session.costUsd,
    durationMs,
    lastText: session.lastText,
  };
}
