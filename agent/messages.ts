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

/** An assistant turn: text and tool calls. */
export interface AssistantMessage {
  role: 'assistant';
  content: Array<TextBlock | ToolCallBlock>;
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

/** Why the model stopped producing output. */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

/** One model request, provider-neutral. */
export interface ModelRequest {
  system: string;
  messages: Message[];
  tools: ToolSchema[];
  maxTokens: number;
  signal?: AbortSignal;
  /** Called with each streamed text fragment. */
  onTextDelta?: (text: string) => void;
}

/** A successful model reply. */
export interface ModelResponse {
  content: Array<TextBlock | ToolCallBlock>;
  stopReason: StopReason;
  usage: Usage;
  /** The model id the server reported. */
  model: string;
}

/** How a model request failed; the kind decides what the caller does next. */
export type ProviderFailureKind =
  /** Transient (5xx, timeout, reset): try again with back-off. */
  | 'retryable'
  /** 429 or overloaded: wait `retryAfterMs` (when known) and slow down. */
  | 'rate_limited'
  /** The conversation no longer fits the context window: end the session with a checkpoint. */
  | 'context_overflow'
  /** The request was aborted by our signal. */
  | 'aborted'
  /** Bad key, bad request, unknown model: retrying will not help. */
  | 'fatal';

/** A failed model request as data: never thrown through the loop. */
export interface ProviderFailure {
  kind: ProviderFailureKind;
  message: string;
  status?: number;
  retryAfterMs?: number;
}

/** The outcome of one model request. */
export type ProviderResult = { ok: true; response: ModelResponse } | { ok: false; failure: ProviderFailure };

/** A model behind some API. `id` is `provider:model`, e.g. `anthropic:claude-sonnet-4-5`. */
export interface ModelProvider {
  readonly id: string;
  complete(request: ModelRequest): Promise<ProviderResult>;
}
