import { withRetries } from '../core/retry.js';
import { inSpan } from '../core/trace.js';
import type { ProviderFailure, ProviderResult, ToolSchema } from './messages.js';
import type { Session } from './session.js';

/** A reply smaller than this is not worth asking for: the window is full. */
export const MIN_REPLY_TOKENS = 1_024;

/** Tokens kept free of the window for the provider's own counting differences. */
const WINDOW_MARGIN = 0.02;

/** Failures retried inside the session; the rest end it with their outcome. */
const RETRIED_KINDS: ReadonlySet<ProviderFailure['kind']> = new Set(['retryable', 'overloaded']);

/** One model request, as the loop sees it: a reply or a failure, and how long it took. */
export type TimedResult = ProviderResult & { durationMs: number };

/**
 * The largest reply that fits: the model's output limit, lowered to what is left of the window after the
 * prompt. Undefined when not even {@link MIN_REPLY_TOKENS} fit (the session must end: context full).
 */
export function replyBudget(session: Session): number | undefined {
  const room = Math.floor(session.windowTokens * (1 - WINDOW_MARGIN)) - session.usedTokens();
  const budget = Math.min(session.maxOutputTokens, room);
  return budget >= Math.min(MIN_REPLY_TOKENS, session.maxOutputTokens) ? budget : undefined;
}

/**
 * One model request through the retry helper: transient and overloaded failures are retried with back-off
 * and jitter (never sooner than the provider's retry-after), each failed attempt reported as `model.error`.
 * A model that rejects images gets the request again at once without them, for the rest of the session.
 */
export async function requestWithRetry(
  session: Session,
  schemas: ToolSchema[],
  maxTokens: number,
): Promise<TimedResult> {
  const { retry } = session.options;
  session.markSent();
  let durationMs = 0;
  const attempt = async () => {
    const result = await requestOnce(session, schemas, maxTokens);
    durationMs = result.durationMs;
    if (result.ok) return { ok: true as const, value: result };
    const { failure } = result;
    return {
      ok: false as const,
      error: failure,
      retryable: RETRIED_KINDS.has(failure.kind),
      retryAfterMs: failure.retryAfterMs,
    };
  };
  const outcome = await withRetries(attempt, {
    policy: {
      ...(retry?.maxRetries === undefined ? {} : { maxRetries: retry.maxRetries }),
      ...(retry?.baseDelayMs === undefined ? {} : { baseDelayMs: retry.baseDelayMs }),
      ...(retry?.maxDelayMs === undefined ? {} : { maxDelayMs: retry.maxDelayMs }),
    },
    signal: session.signal,
    ...(session.options.sleep
      ? { sleep: (ms: number) => session.options.sleep?.(ms, session.signal) ?? Promise.resolve() }
      : {}),
    ...(retry?.random ? { random: retry.random } : {}),
    onFailure: ({ attempt: number, error, willRetry, delayMs }) =>
      session.emit({
        type: 'model.error',
        step: session.steps + 1,
        kind: error.kind,
        message: error.message,
        ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
        willRetry,
        attempt: number,
        ...(willRetry ? { delayMs } : {}),
      }),
  });
  if (outcome.ok) return outcome.value;
  return { ok: false, failure: outcome.error, durationMs };
}

async function requestOnce(session: Session, schemas: ToolSchema[], maxTokens: number): Promise<TimedResult> {
  const first = await send(session, schemas, maxTokens);
  if (first.ok || first.failure.kind !== 'images_unsupported' || !session.vision) return first;
  session.dropImages();
  session.emit({ type: 'model.images_dropped', step: session.steps + 1, message: first.failure.message });
  return send(session, schemas, maxTokens);
}

async function send(session: Session, schemas: ToolSchema[], maxTokens: number): Promise<TimedResult> {
  const messages = session.messages.slice();
  session.emit({
    type: 'model.request',
    step: session.steps + 1,
    messages: messages.length,
    bytes: Buffer.byteLength(JSON.stringify(messages)),
  });
  const { provider } = session.options;
  const attributes = { 'gen_ai.request.model': provider.id, 'gen_ai.request.max_tokens': maxTokens };
  return inSpan('model.request', { ...attributes, 'nightshift.step': session.steps + 1 }, async (span) => {
    const startedAt = session.now();
    const result = await provider.complete({
      system: session.system,
      messages,
      tools: schemas,
      maxTokens,
      vision: session.vision,
      signal: session.signal,
      onTextDelta: (text) => session.emit({ type: 'text.delta', text }),
    });
    if (result.ok) {
      span.set({
        'gen_ai.usage.input_tokens': result.response.usage.inputTokens,
        'gen_ai.usage.output_tokens': result.response.usage.outputTokens,
      });
    } else span.fail(result.failure.kind);
    return { ...result, durationMs: session.now() - startedAt };
  });
}
