/**
 * OpenTelemetry tracing for a worker process: the official SDK, an OTLP/HTTP exporter (JSON) and a batch span
 * processor, registered only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set.
 * Unset, nothing is started and the spans of core/trace.ts stay the API's no-ops.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { moduleLogger } from '../core/log.js';

const log = moduleLogger('cli/telemetry');

/** A registered tracer provider; `shutdown` exports what is left and unregisters it. */
export interface Tracing {
  /** Where spans go (origin and path only: no credentials, no query). */
  endpoint: string;
  /** Exports the spans still buffered. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The OTLP traces URL from the environment, per the OTLP exporter spec; undefined when tracing is off. */
export function tracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/** Starts tracing when the environment asks for it (see the module comment); undefined when it does not. */
export function startTracing(env: NodeJS.ProcessEnv): Tracing | undefined {
  const url = tracesUrl(env);
  if (!url) return undefined;
  const exporter = new OTLPTraceExporter({ url });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME?.trim() || 'nightshift' }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  const endpoint = safeEndpoint(url);
  log.info({ endpoint }, 'tracing: spans are exported over OTLP/HTTP');
  return {
    endpoint,
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider
        .shutdown()
        .catch((error: unknown) => log.warn({ err: error }, 'tracing shutdown failed'));
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

function safeEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(an unparsable URL)';
  }
}
