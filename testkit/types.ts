import { z } from 'zod';
import type { Message } from '../agent/messages.js';

/** Which wire format a request came in. */
export type WireFormat = 'anthropic' | 'openai';

/** A failure (or odd reply) the server produces instead of a normal reply. */
export const Fault = z.discriminatedUnion('kind', [
  /** 429 with a real-API-shaped body and `retry-after` (seconds, default 1). */
  z.object({ kind: z.literal('rate_limit'), retryAfterSeconds: z.number().nonnegative().optional() }),
  /** An error status (default 500; any 4xx/5xx, e.g. 529 overloaded); the body type follows the status. */
  z.object({
    kind: z.literal('server_error'),
    status: z.number().int().min(400).max(599).optional(),
    message: z.string().optional(),
    /** Sent as `retry-after` (seconds). */
    retryAfterSeconds: z.number().nonnegative().optional(),
  }),
  /** Anthropic's 529 `overloaded_error` (OpenAI format: a 503), with `retry-after` when given. */
  z.object({ kind: z.literal('overloaded'), retryAfterSeconds: z.number().nonnegative().optional() }),
  /** Out of credit: OpenAI's 429 `insufficient_quota`; Anthropic's 400 "credit balance is too low". */
  z.object({ kind: z.literal('quota') }),
  /** 404: the model does not exist (OpenAI `model_not_found`, Anthropic `not_found_error`). */
  z.object({ kind: z.literal('model_not_found') }),
  /** The policy's reply cut at the output limit: text and the last tool call's JSON end midway; stop reason max_tokens / length. */
  z.object({ kind: z.literal('max_tokens') }),
  /** No text and no tool call, the output spent on reasoning: stop reason max_tokens / length, reasoning tokens reported. */
  z.object({ kind: z.literal('reasoning_only'), reasoningTokens: z.number().int().positive().optional() }),
  /** The model declines: Anthropic stop_reason `refusal`; OpenAI a `refusal` message. */
  z.object({ kind: z.literal('refusal'), message: z.string().optional() }),
  /** 401 with an invalid-key body. */
  z.object({ kind: z.literal('auth_error') }),
  /** Waits `delayMs` before answering (normally) — long enough and the client times out. */
  z.object({ kind: z.literal('slow'), delayMs: z.number().nonnegative() }),
  /** Streaming: the stream starts and the socket is destroyed midway. Non-streaming: destroyed before any reply. */
  z.object({ kind: z.literal('reset') }),
  /** One tool call whose argument text is not valid JSON. */
  z.object({ kind: z.literal('malformed_tool_json') }),
  /** One tool call to a tool the request did not declare. */
  z.object({ kind: z.literal('unknown_tool') }),
  /** A reply with no text and no tool calls. */
  z.object({ kind: z.literal('empty') }),
  /** 400 saying the prompt does not fit the context window. */
  z.object({ kind: z.literal('context_overflow') }),
]);
export type Fault = z.infer<typeof Fault>;

/**
 * How a server misbehaves on every request, the way real OpenAI-compatible servers do (Chat Completions
 * format unless said otherwise).
 */
export const ServerQuirks = z.object({
  /** Streamed tool calls all at index 0, each whole in one chunk (Ollama). */
  toolCallIndexZero: z.boolean().optional(),
  /** Tool arguments as a JSON object instead of a string (some proxies). */
  objectArguments: z.boolean().optional(),
  /** Tool calls without ids. */
  omitToolCallIds: z.boolean().optional(),
  /** Reasoning in `<think>…</think>` before the text (Qwen/DeepSeek behind Ollama, LM Studio, vLLM without a reasoning parser). */
  thinkText: z.string().optional(),
  /** A text-only model: any request with an image is answered 400 (both formats). */
  textOnly: z.boolean().optional(),
});
export type ServerQuirks = z.infer<typeof ServerQuirks>;

/** One tool call a policy wants the model to make; a string `arguments` is sent verbatim (e.g. broken JSON). */
export const ScriptedToolCall = z.object({
  name: z.string().min(1),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
});
export type ScriptedToolCall = z.infer<typeof ScriptedToolCall>;

/** What a policy answers: a reply (text and/or tool calls), or a fault. */
export const PolicyReply = z.union([
  z.object({ fault: Fault }),
  z.object({
    text: z.string().optional(),
    toolCalls: z.array(ScriptedToolCall).optional(),
    /** Sent cut at the output limit, as the `max_tokens` fault cuts a reply (recorded as that fault). */
    truncated: z.boolean().optional(),
  }),
]);
export type PolicyReply = z.infer<typeof PolicyReply>;

/** A request as a policy sees it: provider-neutral, whatever the wire format. */
export interface ScriptedConversation {
  format: WireFormat;
  model: string;
  system: string;
  messages: Message[];
  toolNames: string[];
  /** Index of this request in the server's log (0-based, across all conversations). */
  requestIndex: number;
}

/** Decides the model's reply to a conversation. */
export type Policy = (conversation: ScriptedConversation) => PolicyReply | Promise<PolicyReply>;

/** One request as received, for tests and benchmarks (size, prefix stability, faults). */
export interface RecordedRequest {
  index: number;
  format: WireFormat;
  model: string;
  stream: boolean;
  bodyBytes: number;
  /** The raw request body. */
  body: string;
  /** `Date.now()` when the body was complete. */
  receivedAt: number;
  /** Kind of the fault applied, if any. */
  fault?: string;
  /** HTTP status sent (absent until sent, and for a reset). */
  status?: number;
  /** True when the client closed the connection before the reply was complete (abort, timeout). */
  clientClosed?: boolean;
}

/** A running scripted model server. */
/** One `GET /v1/models` the server answered. */
export interface ModelListRequest {
  format: WireFormat;
  /** Whether a key came with it (the key itself is not kept). */
  withKey: boolean;
  /** Whether the server accepted the key (`modelListKeys`). */
  accepted: boolean;
}

/** The scripted model server as a test holds it. */
export interface ModelServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Base URL for the Anthropic SDK (it appends `/v1/messages`). */
  readonly anthropicBaseURL: string;
  /** Base URL for the OpenAI SDK (it appends `/chat/completions`): `<url>/v1`. */
  readonly openaiBaseURL: string;
  /** Every request so far, in arrival order (live array). */
  readonly requests: RecordedRequest[];
  /** Every `GET /v1/models` so far (live array). */
  readonly modelLists: ModelListRequest[];
  /** Replaces the policy for the following requests. */
  setPolicy(policy: Policy): void;
  /** Replaces the quirks for the following requests. */
  setQuirks(quirks: ServerQuirks): void;
  /**
   * Queues faults: each applies to the next request, in order. Error and content faults replace the
   * policy's reply (the policy is not asked); `slow` and `reset` deliver (part of) the policy's reply.
   */
  injectFaults(faults: Fault[]): void;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}
