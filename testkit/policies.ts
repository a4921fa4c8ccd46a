import type { TextBlock, ToolResultBlock } from '../agent/messages.js';
import type { Policy, PolicyReply, ScriptedConversation } from './types.js';

/** The tool results in the last message, when it is a user message (else none). */
export function lastToolResults(conversation: ScriptedConversation): ToolResultBlock[] {
  const last = conversation.messages.at(-1);
  if (last?.role !== 'user') return [];
  return last.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

/** The text blocks of the last user message, joined with newlines ('' when there is none). */
export function lastUserText(conversation: ScriptedConversation): string {
  const last = conversation.messages.findLast((message) => message.role === 'user');
  if (!last) return '';
  return last.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** How many assistant turns the conversation already has (0 for the first request of a session). */
export function turnIndex(conversation: ScriptedConversation): number {
  return conversation.messages.filter((message) => message.role === 'assistant').length;
}

/** One step of a {@link sequence}: a fixed reply or one computed from the conversation. */
export type Step = PolicyReply | ((conversation: ScriptedConversation) => PolicyReply | Promise<PolicyReply>);

/** The reply a {@link sequence} gives once its steps are used up. */
export const SEQUENCE_DONE: PolicyReply = { text: 'Done.' };

/**
 * A policy that answers turn by turn: step N answers the request with N assistant turns so far, so
 * the same script serves any number of independent sessions. After the last step it answers `after`.
 */
export function sequence(steps: readonly Step[], after: PolicyReply = SEQUENCE_DONE): Policy {
  return (conversation) => {
    const step = steps[turnIndex(conversation)];
    if (step === undefined) return after;
    return typeof step === 'function' ? step(conversation) : step;
  };
}

/**
 * A policy per model name. A model without a policy gets `fallback`, or else a 404 like the real APIs
 * give for an unknown model.
 */
export function byModel(policies: Record<string, Policy>, fallback?: Policy): Policy {
  return (conversation) => {
    const policy = policies[conversation.model] ?? fallback;
    if (policy) return policy(conversation);
    return {
      fault: {
        kind: 'server_error',
        status: 404,
        message: `model: ${conversation.model} (the scripted server has no policy for it; known: ${Object.keys(policies).join(', ')})`,
      },
    };
  };
}
