import type { ResolvedModelSettings } from './models.js';

/**
 * Provider-neutral conversation types. Adapters translate these to and from the Anthropic Messages
 * and OpenAI Chat Completions wire formats; nothing above `agent/providers` sees a wire format.
 */

/** Plain text from the model or the harness. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** A tool call proposed by the model. `arguments` is the parsed JSON object, or `{}` when parsing failed. */
export interface ToolCallBlock {
  type: 'tool_call';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** The raw argument text when it was not valid JSON (the loop reports it back to the model). */
  invalidArguments?: string;
}

/** An image attached to a tool result (e.g. a screenshot), base64-encoded. */
export interface ImageAttachment {
  mediaType: 'image/png' | 'image/jpeg';
  base64: string;
}

/** The result of one tool call, sent back in the next user message. */
export interface ToolResultBlock {
  type: 'tool_result';
  toolCallId: string;
  content: string;
  isError: boolean;
  images?: ImageAttachment[];
}

/** A user turn: the first message, or tool results plus optional harness notes. */
export interface UserMessage {
  role: 'user';
  content: Array<TextBlock | ToolResultBlock>;
}

/**
 * The model's reasoning, kept out of the visible text. Anthropic's extended thinking carries a `signature`
 * and must go back unchanged with the turn it belongs to; reasoning from other servers (`<think>` blocks,
 * `reasoning_content`) has none and is kept for the record only.
 */
export interface ThinkingBlock {
  type: 'thinking';
  text: string;
  signature?: string;
  /** Anthropic's redacted thinking: opaque data sent back as is. */
  redactedData?: string;
}

/** An assistant turn: text, reasoning and tool calls. */
export interface AssistantMessage {
  role: 'assistant';
  content: Array<TextBlock | ToolCallBlock | ThinkingBlock>;
}

/** One message of a conversation. */
export type Message = UserMessage | AssistantMessage;

/** A tool as the model sees it: name, description and JSON Schema of its arguments. */
export interface ToolSchema {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Token counts of one request (or a sum of requests). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** A usage record with every count at zero. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/** Adds two usage records. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/**
 * Why the model stopped producing output: it finished (`end_turn`), wants tools run (`tool_use`), was cut
 * at the output limit (`max_tokens`: anything it was writing is incomplete), declined (`refusal`, also
 * OpenAI's `content_filter`), or paused a long turn to be sent back as is (`pause_turn`).
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'pause_turn' | 'other';

/** One model request, provider-neutral. */
export interface ModelRequest {
  system: string;
  messages: Message[];
  tools: ToolSchema[];
  maxTokens: number;
  /** False: images in tool results are replaced by a text note (the model cannot read them). Default true. */
  vision?: boolean;
  signal?: AbortSignal;
  /** Called with each streamed text fragment. */
  onTextDelta?: (text: string) => void;
}

/** A successful model reply. */
export interface ModelResponse {
  content: AssistantMessage['content'];
  stopReason: StopReason;
  usage: Usage;
  /** Output tokens spent on reasoning (included in `usage.outputTokens`), when the server says. */
  reasoningTokens?: number;
  /** The refusal text, when the model declined (OpenAI's `refusal` field). */
  refusal?: string;
  /** The model id the server reported. */
  model: string;
}

/** How a model request failed; the kind decides what the caller does next. */
export type ProviderFailureKind =
  /** Transient (5xx, timeout, reset): try again with back-off. */
  | 'retryable'
  /** The provider is overloaded (Anthropic 529 `overloaded_error`): retried inside the session, honouring retry-after. */
  | 'overloaded'
  /** 429: the run pauses for `retryAfterMs` (when known) and slows down. */
  | 'rate_limited'
  /** Out of credit (OpenAI `insufficient_quota`, Anthropic billing): the run fails until someone pays. */
  | 'quota_exhausted'
  /** The key was refused (401/403): the run fails until the key is fixed. */
  | 'auth'
  /** The model (or endpoint) does not exist (404): the run fails until the model id is fixed. */
  | 'model_not_found'
  /** The model takes no images: the request is sent again without them. */
  | 'images_unsupported'
  /** The conversation no longer fits the context window: end the session with a checkpoint. */
  | 'context_overflow'
  /** The request was aborted by our signal. */
  | 'aborted'
  /** Any other rejected request: retrying will not help. */
  | 'fatal';

/** Failures that will not go away by themselves: the run fails at once with the provider's message and the fix. */
export const RUN_FATAL_FAILURES: readonly ProviderFailureKind[] = [
  'quota_exhausted',
  'auth',
  'model_not_found',
];

/** A failed model request as data: never thrown through the loop. */
export interface ProviderFailure {
  kind: ProviderFailureKind;
  message: string;
  status?: number;
  retryAfterMs?: number;
}

/** The outcome of one model request. */
export type ProviderResult = { ok: true; response: ModelResponse } | { ok: false; failure: ProviderFailure };

/** A model behind some API. `id` is `provider:model`, e.g. `anthropic:claude-sonnet-5-5`. */
export interface ModelProvider {
  readonly id: string;
  /** What the harness knows about the model (window, output limit, vision, price); defaults when absent. */
  readonly settings?: ResolvedModelSettings;
  complete(request: ModelRequest): Promise<ProviderResult>;
}
