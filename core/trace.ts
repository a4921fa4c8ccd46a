/**
 * Spans through the OpenTelemetry API only. Without a registered SDK (no `OTEL_EXPORTER_OTLP_ENDPOINT`, see
 * cli/telemetry.ts) every call here is the API's no-op, so lower layers can trace without knowing who exports.
 * Attributes are names, ids, counts and outcomes chosen by the caller, never tool output, prompts or keys; strings
 * lose any URL credentials on the way in, and a failed span says only the error's name.
 */
import { type Attributes, type AttributeValue, type Span, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * The tracer of the provider registered now: asked for each span, since a proxy tracer keeps the first provider it
 * met, and a provider registered after another (a benchmark's, after tracing was shut down) would get nothing.
 */
function tracer() {
  return trace.getTracer('nightshift');
}

/** `user:password@` in a URL, wherever it appears in a string. */
const URL_CREDENTIALS = /(\/\/)[^/@\s]+@/g;

function withoutCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1***@');
}

/** Attribute values the caller picked, URL credentials removed from strings. */
export function safeAttributes(attributes: Record<string, AttributeValue | undefined>): Attributes {
  const safe: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    safe[key] =
      typeof value === 'string'
        ? withoutCredentials(value)
        : Array.isArray(value)
          ? ((value as unknown[]).map((item) =>
              typeof item === 'string' ? withoutCredentials(item) : item,
            ) as AttributeValue)
          : value;
  }
  return safe;
}

/** What a traced function can add to its span while it runs. */
export interface SpanNotes {
  /** Adds attributes (same rules as the span's first ones). */
  set(attributes: Record<string, AttributeValue | undefined>): void;
  /** Marks the span failed with a short, secret-free word (an outcome or an error kind). */
  fail(kind: string): void;
}

/**
 * Runs `work` inside an active span named `name` (children nest under it), ends the span when it settles, and
 * marks it failed with the error's name when it throws.
 */
export function inSpan<T>(
  name: string,
  attributes: Record<string, AttributeValue | undefined>,
  work: (notes: SpanNotes) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes: safeAttributes(attributes) }, async (span: Span) => {
    const notes: SpanNotes = {
      set: (more) => span.setAttributes(safeAttributes(more)),
      fail: (kind) => {
        span.setAttribute('error.type', kind);
        span.setStatus({ code: SpanStatusCode.ERROR, message: kind });
      },
    };
    try {
      return await work(notes);
    } catch (error) {
      notes.fail(error instanceof Error ? error.name : 'Error');
      throw error;
    } finally {
      span.end();
    }
  });
}
