import type { AgentOutcome } from './loop-types.js';
import type { AssistantMessage, ModelResponse, ToolCallBlock, ToolResultBlock } from './messages.js';
import { EMPTY_REPLY_TEXT, type Session } from './session.js';

/** Replies cut at the output limit in a row before the session ends `output_truncated`. */
export const MAX_TRUNCATIONS_IN_A_ROW = 3;
/** Paused turns (`pause_turn`) in a row sent back before the session ends. */
const MAX_PAUSES_IN_A_ROW = 3;

/** What the loop does after a reply. */
export type ReplyAction =
  /** The reply was handled (a note or error results were added): request again. */
  | { kind: 'continue' }
  /** The session ends here. */
  | { kind: 'end'; outcome: AgentOutcome; reason: string }
  /** The model wants these tools run. */
  | { kind: 'run_tools'; calls: ToolCallBlock[] }
  /** The model stopped: the caller's completion checks decide whether it may. */
  | { kind: 'stop' };

/**
 * Reads each reply by its stop reason. A reply cut at the output limit is never taken as a stop, a refusal
 * ends the session, a paused turn is sent back, an empty reply may get one nudge. Keeps the streaks these
 * decisions count (truncations and pauses in a row, whether an empty reply was nudged).
 */
export class ReplyReader {
  /** Replies cut at the output limit in a row. */
  private truncations = 0;
  /** Paused turns (`pause_turn`) in a row. */
  private pauses = 0;
  /** Set once an empty reply was nudged; cleared by any reply with content. */
  private nudged = false;

  constructor(private readonly session: Session) {}

  /** Adds the reply to the conversation and says what the loop does next. */
  read(response: ModelResponse, maxTokens: number): ReplyAction {
    const assistant = assistantMessage(response.content);
    this.session.pushReply(assistant);
    const calls = assistant.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
    if (response.stopReason === 'refusal') return refused(this.session, response);
    if (response.stopReason === 'pause_turn') return this.paused();
    this.pauses = 0;
    if (isEmptyReply(response.content)) {
      const nudge = this.nudgeEmpty(response);
      if (nudge) return nudge;
      if (response.stopReason === 'max_tokens') return this.truncated(calls, maxTokens);
      return { kind: 'stop' };
    }
    this.nudged = false;
    if (response.stopReason === 'max_tokens') return this.truncated(calls, maxTokens);
    this.truncations = 0;
    return calls.length === 0 ? { kind: 'stop' } : { kind: 'run_tools', calls };
  }

  /**
   * A reply cut at the output limit: its tool calls are not run (their arguments may be incomplete) and each
   * gets an error result saying so; a reply without calls gets a note to continue. After
   * {@link MAX_TRUNCATIONS_IN_A_ROW} in a row the session ends `output_truncated`.
   */
  private truncated(calls: ToolCallBlock[], maxTokens: number): ReplyAction {
    const session = this.session;
    this.truncations++;
    session.emit({ type: 'model.truncated', step: session.steps, maxTokens, toolCalls: calls.length });
    if (this.truncations >= MAX_TRUNCATIONS_IN_A_ROW) {
      if (calls.length) session.push({ role: 'user', content: notRun(calls, 'the session is ending') });
      return {
        kind: 'end',
        outcome: 'output_truncated',
        reason: `${this.truncations} replies in a row were cut off at the output limit of ${maxTokens} tokens`,
      };
    }
    const advice = truncationAdvice(maxTokens);
    if (calls.length) {
      session.push({ role: 'user', content: notRun(calls, advice) });
    } else {
      session.addNote(`${advice} Continue from where it stopped.`);
    }
    return { kind: 'continue' };
  }

  /**
   * An empty reply gets one nudge when it is not a real stop: the output went to reasoning (a reasoning-only
   * reply, often cut at the limit), or it came right after a harness note (models read a note as the end of
   * their turn). Returns undefined when the empty reply is a plain stop.
   */
  private nudgeEmpty(response: ModelResponse): ReplyAction | undefined {
    if (this.nudged) return undefined;
    const reasoned =
      response.stopReason === 'max_tokens' ||
      (response.reasoningTokens ?? 0) > 0 ||
      response.content.some((block) => block.type === 'thinking');
    const afterNote = this.session.lastRequestHadNote;
    if (!reasoned && !afterNote) return undefined;
    this.nudged = true;
    const reason = reasoned ? 'reasoning_only' : 'empty_after_note';
    this.session.emit({ type: 'model.nudged', step: this.session.steps, reason });
    this.session.addNote(
      reasoned
        ? 'Your reply had no answer and no tool call: the output limit went to reasoning. Reason briefly, then act with a tool call or answer.'
        : 'Your reply was empty. Continue with your task.',
    );
    return { kind: 'continue' };
  }

  /** A paused turn is sent back as it is so the model continues it; bounded. */
  private paused(): ReplyAction {
    this.pauses++;
    if (this.pauses > MAX_PAUSES_IN_A_ROW) {
      return {
        kind: 'end',
        outcome: 'provider_error',
        reason: 'the model paused its turn too many times in a row',
      };
    }
    return { kind: 'continue' };
  }
}

/** A refusal ends the session with its own outcome; nothing in the reply runs. */
function refused(session: Session, response: ModelResponse): ReplyAction {
  const message = response.refusal ?? 'the model declined to continue (stop reason: refusal)';
  session.emit({ type: 'model.refused', step: session.steps, message });
  return { kind: 'end', outcome: 'refused', reason: `the model refused: ${message}` };
}

/** The reply as a message; an empty one says so (the APIs refuse empty assistant turns). */
function assistantMessage(content: AssistantMessage['content']): AssistantMessage {
  const kept = content.filter((block) => block.type !== 'text' || block.text.length > 0);
  if (!kept.some((block) => block.type !== 'thinking')) {
    return { role: 'assistant', content: [...kept, { type: 'text', text: EMPTY_REPLY_TEXT }] };
  }
  return { role: 'assistant', content: kept };
}

/** How to go on after a cut-off reply, in words the model can act on. */
function truncationAdvice(maxTokens: number): string {
  return (
    `Your reply was cut off at the output limit of ${maxTokens} tokens, so it is incomplete. ` +
    'Keep each reply smaller: write a large file in parts (write the first part, then add the rest with edit), ' +
    'change existing files with edit instead of rewriting them, and keep text short.'
  );
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
function isEmptyReply(content: AssistantMessage['content']): boolean {
  return !content.some((block) => block.type === 'tool_call' || (block.type === 'text' && block.text !== ''));
}
