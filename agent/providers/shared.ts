import { randomBytes } from 'node:crypto';
import type {
  AssistantMessage,
  ModelProvider,
  ModelRequest,
  ProviderResult,
  ToolCallBlock,
} from '../messages.js';
import type { ReasoningSettings, ResolvedModelSettings } from '../models.js';
import { classifyFailure, type FailureContext, type SdkErrorClasses } from './failures.js';

/** Default timeout of one HTTP attempt, and the longest a stream may stay silent: 10 minutes. */
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Default number of retries the SDK makes on its own: none. Retries happen in one place, the harness's
 * retry helper (core/retry.ts), which keeps every attempt's error and reports each as an event.
 */
export const DEFAULT_MAX_RETRIES = 0;

/** What a model without vision sees where an image was. */
export const IMAGE_OMITTED_NOTE =
  '[image omitted: this model does not read images; use the text tools (e.g. browser_snapshot) instead]';

/** A tool call id for a server that sent none (unique across the session, unlike `call_0`). */
export function newToolCallId(): string {
  return `call_ns${randomBytes(9).toString('hex')}`;
}

/**
 * A tool call from the model's raw argument text. Malformed or non-object JSON never throws: the block
 * gets `arguments: {}` and the raw text in `invalidArguments`, so the loop can tell the model.
 */
export function toolCallFromRaw(id: string, name: string, raw: string): ToolCallBlock {
  if (raw.trim() === '') return { type: 'tool_call', id, name, arguments: {} };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isPlainObject(parsed)) return { type: 'tool_call', id, name, arguments: parsed };
  } catch {
    // fall through: reported as invalid below
  }
  return { type: 'tool_call', id, name, arguments: {}, invalidArguments: raw };
}

/** A tool call from an already-decoded `input` value (non-streaming replies; some proxies send objects). */
export function toolCallFromValue(id: string, name: string, input: unknown): ToolCallBlock {
  if (isPlainObject(input)) return { type: 'tool_call', id, name, arguments: input };
  if (typeof input === 'string') return toolCallFromRaw(id, name, input);
  if (input === undefined || input === null) return { type: 'tool_call', id, name, arguments: {} };
  return { type: 'tool_call', id, name, arguments: {}, invalidArguments: JSON.stringify(input) };
}

/** True for `{...}` (not arrays, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Options every SDK-backed provider takes. */
export interface SdkProviderOptions {
  /** Model name without the provider prefix, e.g. `claude-sonnet-5-5` or `gpt-5.1`. */
  model: string;
  /** API key. */
  apiKey: string;
  /** Retries the SDK makes on 408/409/429/5xx and connection errors, honouring `retry-after`. Default 2. */
  maxRetries?: number;
  /** Timeout of one HTTP attempt, and the longest a stream may stay silent. Default 10 minutes. */
  timeoutMs?: number;
  /** Stream the reply (default true). */
  stream?: boolean;
  /** Whether the model reads images (default true); without, screenshots become a text note. */
  vision?: boolean;
  /** Reasoning effort / extended thinking, from the model's settings. */
  reasoning?: ReasoningSettings;
  /** Where the key came from, named when authentication fails. */
  keyHint?: string;
  /** The model's resolved settings, carried by the provider for the loop (window, output limit, price). */
  settings?: ResolvedModelSettings;
}

/** The parts a provider shell supplies to {@link sdkProvider}. */
export interface SdkShell {
  id: string;
  keyHint: string;
  baseURL: string;
  timeoutMs: number;
  stream: boolean;
  vision: boolean;
  classes: SdkErrorClasses;
  settings?: ResolvedModelSettings | undefined;
  once(request: ModelRequest): Promise<ProviderResult>;
  streaming(request: ModelRequest, context: FailureContext): Promise<ProviderResult>;
}

/**
 * A `ModelProvider` around one SDK: picks streaming or not, fills in the vision default, and turns
 * anything thrown into a typed failure (never throws).
 */
export function sdkProvider(shell: SdkShell): ModelProvider {
  return {
    id: shell.id,
    ...(shell.settings ? { settings: shell.settings } : {}),
    async complete(request) {
      const context: FailureContext = {
        providerId: shell.id,
        keyHint: shell.keyHint,
        baseURL: shell.baseURL,
        timeoutMs: shell.timeoutMs,
        signal: request.signal,
      };
      const withVision = { ...request, vision: request.vision ?? shell.vision };
      try {
        return shell.stream ? await shell.streaming(withVision, context) : await shell.once(withVision);
      } catch (error) {
        return { ok: false, failure: classifyFailure(error, shell.classes, context) };
      }
    },
  };
}

/** A non-streamed reply's text, handed to the request's text callback as if it had streamed. */
export function replayText(content: AssistantMessage['content'], request: ModelRequest): void {
  for (const block of content) if (block.type === 'text') request.onTextDelta?.(block.text);
}
