import { retryAfterMsFromHeaders } from '../../core/retry.js';
import type { ProviderFailure } from '../messages.js';

/**
 * The error classes one SDK exports. Both official SDKs share this shape (they come from the same
 * generator), so one classifier serves both while still using each SDK's own classes.
 */
export interface SdkErrorClasses {
  APIError: abstract new (
    ...args: never[]
  ) => Error & {
    status: number | undefined;
    headers: Headers | undefined;
    error: unknown;
  };
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  /** The SDK's base error class (non-HTTP failures such as invalid options). */
  BaseError: abstract new (
    ...args: never[]
  ) => Error;
}

/** What the classifier needs to know to say what to fix. */
export interface FailureContext {
  /** `provider:model`, named in messages. */
  providerId: string;
  /** Where the key comes from, e.g. `ANTHROPIC_API_KEY`. */
  keyHint: string;
  /** The base URL in use, named when a 404 suggests a wrong endpoint. */
  baseURL: string;
  /** The per-request timeout, named in timeout messages. */
  timeoutMs: number;
  /** The caller's signal: when it is aborted, every failure is `aborted`. */
  signal: AbortSignal | undefined;
}

/** Messages that mean "the conversation does not fit", across Anthropic, OpenAI and common compatible servers. */
const CONTEXT_OVERFLOW_PATTERN =
  /prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|context window|too many tokens|input is too long|exceeds the context|reduce the length/i;

/** Out of credit: OpenAI's `insufficient_quota` (a 429), Anthropic's billing errors (400/402), OpenRouter's 402. */
const QUOTA_PATTERN =
  /insufficient_quota|exceeded your current quota|credit balance is too low|insufficient credits|billing_error|payment required/i;

/** A text-only model refusing image parts: OpenAI, Ollama, LM Studio, vLLM and llama.cpp wordings. */
const IMAGES_UNSUPPORTED_PATTERN =
  /image_url is only supported|does not support image|not support images|not a multimodal model|image input is not supported|images are not supported|vision is not supported/i;

export { retryAfterMsFromHeaders } from '../../core/retry.js';

/** True when an error message or code says the prompt exceeded the model's context window. */
export function isContextOverflowMessage(text: string): boolean {
  return CONTEXT_OVERFLOW_PATTERN.test(text);
}

function errorBodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  try {
    return typeof body === 'string' ? body : JSON.stringify(body);
  } catch {
    return String(body);
  }
}

function errorType(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const nested = record.error;
  if (nested && typeof nested === 'object') {
    const type = (nested as Record<string, unknown>).type;
    if (typeof type === 'string') return type;
  }
  return typeof record.type === 'string' ? record.type : undefined;
}

function isAbortLike(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError');
}

/** The API's own error message: Anthropic nests it in `error.error.message`, OpenAI in `error.message`. */
function apiMessage(body: unknown, fallback: string): string {
  if (!body || typeof body !== 'object') return fallback;
  const record = body as Record<string, unknown>;
  const nested = record.error as Record<string, unknown> | undefined;
  if (nested && typeof nested === 'object' && typeof nested.message === 'string') return nested.message;
  return typeof record.message === 'string' ? record.message : fallback;
}

function classifyStatus(
  status: number,
  error: { message: string; error: unknown; headers: Headers | undefined },
  context: FailureContext,
): ProviderFailure {
  const { providerId } = context;
  const message = `${status} ${apiMessage(error.error, error.message)}`;
  const said = `${message} ${errorBodyText(error.error)}`;
  const retryAfterMs = retryAfterMsFromHeaders(error.headers);
  const type = errorType(error.error);
  if (QUOTA_PATTERN.test(said) || status === 402) {
    return {
      kind: 'quota_exhausted',
      status,
      message: `${providerId}: out of credit (${message}); add credit or raise the quota of ${context.keyHint}'s account, then resume the run`,
    };
  }
  if (status === 529 || type === 'overloaded_error') {
    return { kind: 'overloaded', status, message: `${providerId}: ${message}`, retryAfterMs };
  }
  if (status === 429)
    return { kind: 'rate_limited', status, message: `${providerId}: ${message}`, retryAfterMs };
  if ((status === 400 || status === 413) && isContextOverflowMessage(said)) {
    return { kind: 'context_overflow', status, message: `${providerId}: ${message}` };
  }
  if ((status === 400 || status === 415 || status === 422) && IMAGES_UNSUPPORTED_PATTERN.test(said)) {
    return { kind: 'images_unsupported', status, message: `${providerId}: ${message}` };
  }
  if (status >= 500 || status === 408 || status === 409) {
    return { kind: 'retryable', status, message: `${providerId}: ${message}`, retryAfterMs };
  }
  if (status === 401 || status === 403) {
    const what = status === 401 ? 'authentication failed' : 'permission denied';
    return {
      kind: 'auth',
      status,
      message: `${providerId}: ${what} (${message}); check ${context.keyHint}${status === 403 ? ' and that it may use this model' : ''}`,
    };
  }
  if (status === 404) {
    return {
      kind: 'model_not_found',
      status,
      message: `${providerId}: not found (${message}); check the model name and the base URL ${context.baseURL}`,
    };
  }
  return { kind: 'fatal', status, message: `${providerId}: request rejected (${message})` };
}

/** Turns anything an SDK call threw into a typed failure; never throws. */
export function classifyFailure(
  error: unknown,
  classes: SdkErrorClasses,
  context: FailureContext,
): ProviderFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (context.signal?.aborted || error instanceof classes.APIUserAbortError || isAbortLike(error)) {
    return { kind: 'aborted', message: `${context.providerId}: request aborted` };
  }
  if (error instanceof classes.APIConnectionTimeoutError) {
    return {
      kind: 'retryable',
      message: `${context.providerId}: request timed out after ${context.timeoutMs} ms`,
    };
  }
  if (error instanceof classes.APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { kind: 'retryable', message: `${context.providerId}: connection failed${cause}` };
  }
  if (error instanceof classes.APIError) {
    if (error.status !== undefined) return classifyStatus(error.status, error, context);
    // An error event inside a stream carries no status: decide by its type.
    const type = errorType(error.error) ?? '';
    const text = `${message} ${errorBodyText(error.error)}`;
    const retryAfterMs = retryAfterMsFromHeaders(error.headers);
    if (type === 'overloaded_error') return { kind: 'overloaded', message, retryAfterMs };
    if (type === 'rate_limit_error') return { kind: 'rate_limited', message, retryAfterMs };
    if (isContextOverflowMessage(text)) return { kind: 'context_overflow', message };
    if (type === 'authentication_error' || type === 'permission_error') {
      return { kind: 'auth', message: `${context.providerId}: ${message}; check ${context.keyHint}` };
    }
    return { kind: 'retryable', message: `${context.providerId}: stream error (${message})` };
  }
  if (error instanceof classes.BaseError) {
    return { kind: 'fatal', message: `${context.providerId}: ${message}` };
  }
  // Anything else escaped the SDK mid-stream (socket reset, truncated body, unparsable chunk).
  return { kind: 'retryable', message: `${context.providerId}: response failed midway (${message})` };
}
