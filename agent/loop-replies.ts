import { emit, HARNESS_PREFIX, pushMessage, type Session, scrub } from './loop-session.js';
import type { AgentOutcome } from './loop-types.js';
import type { AssistantMessage, ModelResponse, ToolCallBlock, ToolResultBlock } from './messages.js';

/** Replies cut at the output limit in a row before the session ends `output_truncated`. */
export const MAX_TRUNCATIONS_IN_A_ROW = 3;
/** Paused turns (`pause_turn`) in a row sent back before the session ends. */
const MAX_PAUSES_IN_A_ROW = 3;

/** What the loop does after a reply that is not a plain tool-use or stop. */
export type ReplyAction =
  /** The reply was handled (a note or error results were added): request again. */
  | { kind: 'continue' }
  /** The session ends here. */
  | { kind: 'end'; outcome: AgentOutcome; reason: string };

/** How to go on after a cut-off reply, in words the model can act on. */
function truncationAdvice(maxTokens: number): string {
  return (
    `Your reply was cut off at the output limit of ${maxTokens} tokens, so it is incomplete. ` +
    'Keep each reply smaller: write a large file in parts (write the first part, then add the rest with edit), ' +
    'change existing files with edit instead of rewriting them, and keep text short.'
  );
}

/**
 * A reply cut at the output limit: its tool calls are not run (their arguments may be incomplete) and each
 * gets an error result saying so; a reply without calls gets a note to continue. After
 * {@link MAX_TRUNCATIONS_IN_A_ROW} in a row the session ends `output_truncated`.
 */
export function handleTruncated(session: Session, calls: ToolCallBlock[], maxTokens: number): ReplyAction {
  session.truncations++;
  emit(session, { type: 'model.truncated', step: session.steps, maxTokens, toolCalls: calls.length });
  if (session.truncations >= MAX_TRUNCATIONS_IN_A_ROW) {
    if (calls.length) pushMessage(session, { role: 'user', content: notRun(calls, 'the session is ending') });
    return {
      kind: 'end',
      outcome: 'output_truncated',
      reason: `${session.truncations} replies in a row were cut off at the output limit of ${maxTokens} tokens`,
    };
  }
  const advice = truncationAdvice(maxTokens);
  if (calls.length) {
    pushMessage(session, { role: 'user', content: notRun(calls, advice) });
  } else {
    addNote(session, `${advice} Continue from where it stopped.`);
  }
  return { kind: 'continue' };
}

function notRun(calls: ToolCallBlock[], why: string): ToolResultBlock[] {
  return calls.map((call) => ({
    type: 'tool_result',
    toolCallId: call.id,
    content: `Not run: ${why}`,
    isError: true,
  }));
}

/** True when a reply has neither text nor tool calls (reasoning alone does not count). */
export function isEmptyReply(content: AssistantMessage['content']): boolean {
  return !content.some((block) => block.type === 'tool_call' || (block.type === 'text' && block.text !== ''));
}

/**
 * An empty reply gets one nudge when it is not a real stop: the output went to reasoning (a reasoning-only
 * reply, often cut at the limit), or it came right after a harness note (models read a note as the end of
 * their turn). Returns undefined when the empty reply is a plain stop.
 */
export function handleEmpty(session: Session, response: ModelResponse): ReplyAction | undefined {
  if (session.nudged) return undefined;
  const reasoned =
    response.stopReason === 'max_tokens' ||
    (response.reasoningTokens ?? 0) > 0 ||
    response.content.some((block) => block.type === 'thinking');
  const afterNote = session.noteSent;
  if (!reasoned && !afterNote) return undefined;
  session.nudged = true;
  const reason = reasoned ? 'reasoning_only' : 'empty_after_note';
  emit(session, { type: 'model.nudged', step: session.steps, reason });
  addNote(
    session,
    reasoned
      ? 'Your reply had no answer and no tool call: the output limit went to reasoning. Reason briefly, then act with a tool call or answer.'
      : 'Your reply was empty. Continue with your task.',
  );
  return { kind: 'continue' };
}

/** A refusal ends the session with its own outcome; nothing in the reply runs. */
export function handleRefusal(session: Session, response: ModelResponse): ReplyAction {
  const message = response.refusal ?? 'the model declined to continue (stop reason: refusal)';
  emit(session, { type: 'model.refused', step: session.steps, message });
  return { kind: 'end', outcome: 'refused', reason: `the model refused: ${message}` };
}

/** A paused turn is sent back as it is so the model continues it; bounded. */
export function handlePause(session: Session): ReplyAction {
  session.pauses++;
  if (session.pauses > MAX_PAUSES_IN_A_ROW) {
    return {
      kind: 'end',
      outcome: 'provider_error',
      reason: 'the model paused its turn too many times in a row',
    };
  }
  return { kind: 'continue' };
}

/**
 * Adds harness notes without touching anything already sent. A pending user message with tool results
 * gets the note inside its last result: Anthropic documents that text placed right after tool results
 * makes the model return empty replies. Otherwise the note goes in a new (or the pending) user message.
 */
export function addNote(session: Session, note: string): void {
  const text = `${HARNESS_PREFIX} ${note}`;
  session.notePending = true;
  const last = session.messages.at(-1);
  const pending = last?.role === 'user' && session.messages.length > session.sentCount ? last : undefined;
  if (!pending) {
    pushMessage(session, { role: 'user', content: [{ type: 'text', text }] });
    return;
  }
  const results = pending.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
  const lastResult = results.at(-1);
  const clean = scrub(session, text, 'note');
  if (lastResult) lastResult.content = `${lastResult.content}\n\n${clean}`;
  else pending.content.push({ type: 'text', text: clean });
}
