import { moduleLogger } from '../core/log.js';
import type { AgentOutcome, AgentResult, RunAgentOptions } from './loop-types.js';
import { type ReplyAction, ReplyReader } from './replies.js';
import { replyBudget, requestWithRetry } from './request.js';
import { Session } from './session.js';
import { toolSchema } from './tool.js';
import { runCalls } from './tool-runner.js';

export { abortableSleep } from '../core/retry.js';
export type * from './loop-types.js';
export { EMPTY_REPLY_TEXT, textOf } from './session.js';

const log = moduleLogger('agent/loop');

/** Why the loop ended, decided inside one iteration. */
type Ending = { outcome: AgentOutcome; reason?: string; failure?: AgentResult['failure'] };

/**
 * Runs one agent session: model request, tool calls, results, again, until the model stops (and the
 * `beforeStop` hook agrees), a limit passes, a hook ends it, the model refuses, or the provider fails for
 * good. The stop reason of every reply is read (replies.ts): a reply cut at the output limit is never taken
 * as a stop. Context is append-only (old results of elidable tools aside, see Session.elideOldResults) and
 * budgeted against the model's window from the provider's reported usage. Never throws on model output.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const session = new Session(options);
  session.push({ role: 'user', content: [{ type: 'text', text: options.firstMessage }] });
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

/** The request/act cycle. Returns how the session ended. */
async function drive(session: Session): Promise<Ending> {
  const { hooks } = session.options;
  const schemas = session.options.tools.map(toolSchema);
  const replies = new ReplyReader(session);
  const reminders = new Reminders(session);
  const completion = new CompletionChecks(session);
  for (;;) {
    const limit = limitReached(session);
    if (limit) return limit;
    const decision = (await hooks?.beforeTurn?.(session.state())) ?? {};
    if (decision.end) return { outcome: 'ended_by_hook', reason: decision.end };
    if (decision.done) {
      const stopped = await completion.onStop();
      if (stopped) return stopped;
    }
    for (const note of [decision.note, ...reminders.due()]) if (note) session.addNote(note);
    session.elideOldResults();
    const maxTokens = replyBudget(session);
    if (maxTokens === undefined) {
      return {
        outcome: 'context_overflow',
        reason: `the context window is full: about ${session.usedTokens()} of ${session.windowTokens} tokens in use`,
      };
    }
    const result = await requestWithRetry(session, schemas, maxTokens);
    if (!result.ok) return failureEnding(session, result.failure);
    session.countReply(result.response, result.durationMs);
    const ending = await act(session, replies.read(result.response, maxTokens), completion);
    if (ending) return ending;
    if (session.signal.aborted) return abortEnding(session);
  }
}

/** Does what the reply asked: run its tools, check a stop, or end the session. */
async function act(
  session: Session,
  action: ReplyAction,
  completion: CompletionChecks,
): Promise<Ending | undefined> {
  if (action.kind === 'end') return { outcome: action.outcome, reason: action.reason };
  if (action.kind === 'stop') return completion.onStop();
  if (action.kind === 'run_tools') {
    const results = await runCalls(session, action.calls);
    session.push({ role: 'user', content: results });
  }
  return undefined;
}

function limitReached(session: Session): Ending | undefined {
  const { limits } = session.options;
  if (session.signal.aborted) return abortEnding(session);
  if (session.elapsedMs() >= limits.maxWallMs) {
    return { outcome: 'time_limit', reason: `wall-clock limit of ${limits.maxWallMs} ms reached` };
  }
  if (session.steps >= limits.maxSteps) {
    return { outcome: 'step_limit', reason: `step limit of ${limits.maxSteps} model requests reached` };
  }
  return undefined;
}

function abortEnding(session: Session): Ending {
  const elapsed = session.elapsedMs();
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
class Reminders {
  private remindedSteps = false;
  private remindedTime = false;

  constructor(private readonly session: Session) {}

  /** The reminders due now (each reported as a `budget.reminder` event). */
  due(): string[] {
    const { session } = this;
    const { limits } = session.options;
    const at = limits.reminderAt ?? 0.8;
    const wrapUp = limits.wrapUp ?? 'commit your work and append a progress note.';
    const notes: string[] = [];
    if (!this.remindedSteps && session.steps >= Math.floor(limits.maxSteps * at) && session.steps > 0) {
      this.remindedSteps = true;
      notes.push(`You have used ${session.steps} of ${limits.maxSteps} steps. Wrap up now: ${wrapUp}`);
    }
    const elapsed = session.elapsedMs();
    if (!this.remindedTime && elapsed >= limits.maxWallMs * at) {
      this.remindedTime = true;
      const minutesLeft = Math.max(0, Math.round((limits.maxWallMs - elapsed) / 60_000));
      notes.push(`About ${minutesLeft} minute(s) of this session remain. Wrap up now: ${wrapUp}`);
    }
    for (const message of notes) session.emit({ type: 'budget.reminder', step: session.steps, message });
    return notes;
  }
}

/**
 * How a request that failed for good ends the session: a rate limit (or an overload that outlasted the
 * retries) pauses the run; an overflow checkpoints; everything else is a provider error whose failure kind
 * tells the run whether to fail at once (quota, key, model) or count it.
 */
function failureEnding(session: Session, failure: NonNullable<AgentResult['failure']>): Ending {
  if (failure.kind === 'aborted' || session.signal.aborted) return abortEnding(session);
  const outcome: AgentOutcome =
    failure.kind === 'rate_limited' || failure.kind === 'overloaded'
      ? 'rate_limited'
      : failure.kind === 'context_overflow'
        ? 'context_overflow'
        : 'provider_error';
  return { outcome, reason: failure.message, failure };
}

/** The caller's completion checks, asked when the model stops calling tools; they may send it back a few times. */
class CompletionChecks {
  /** Times the model was sent back so far. */
  private returns = 0;

  constructor(private readonly session: Session) {}

  /** How the session ends when the model stops, or undefined when the checks sent it back with a note. */
  async onStop(): Promise<Ending | undefined> {
    const { session } = this;
    const maxReturns = session.options.limits.maxStopReturns ?? 3;
    const decision = (await session.options.hooks?.beforeStop?.(session.state())) ?? { stop: true };
    if (decision.stop) return { outcome: 'completed', reason: '' };
    if (this.returns >= maxReturns) {
      return {
        outcome: 'completed',
        reason: `completion checks still failing after ${maxReturns} returns: ${decision.message}`,
      };
    }
    this.returns++;
    session.emit({
      type: 'stop.blocked',
      step: session.steps,
      reason: decision.message,
      attempt: this.returns,
    });
    session.addNote(decision.message);
    return undefined;
  }
}

/** Writes the end of the session down and returns its record. */
function finish(session: Session, ending: Ending): AgentResult {
  session.flushTranscript();
  const durationMs = session.elapsedMs();
  const reason = ending.reason === '' ? undefined : ending.reason;
  session.emit({
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
