/**
 * Where a worker's time goes, from the harness's own OpenTelemetry spans (the ones an operator exports with
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, docs/operations.md): every span's wall time summed by its name under the role of
 * the session (or the merge step, or the full sweep) it ran in, e.g. `evaluator / app.copy` or `merge / checks.replay`. Spans of one
 * kind nest (a `git` span inside `workspace.prepare`), so the figures of different names overlap and do not add up.
 */
import { type Context, context, type ProxyTracerProvider, propagation, trace } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { z } from 'zod';

/** Per `<session role or merge> / <span name>`: how many spans ended and their summed wall time. */
export const PhaseTotals = z.record(z.string(), z.object({ n: z.number().int(), ms: z.number() }));
export type PhaseTotals = z.infer<typeof PhaseTotals>;

/** Collects the spans of this process until `stop`. */
export interface PhaseRecorder {
  totals(): PhaseTotals;
  stop(): Promise<void>;
}

/** Spans whose name scopes everything under them. */
function scopeOf(name: string): string | undefined {
  if (name.startsWith('session ')) return name.slice('session '.length);
  return name === 'merge' || name === 'full_sweep' ? name : undefined;
}

/** Sums span durations by scope and name (see the module comment). */
class PhaseProcessor implements SpanProcessor {
  /**
   * Each open or parent span's scope, held as long as something can still start a child of it (an app started
   * ahead begins its spans after the span that started it ended): a long benchmark's spans are not all kept.
   */
  private readonly scopes = new WeakMap<object, string>();
  readonly sums = new Map<string, { n: number; ms: number }>();

  onStart(span: Span, parentContext: Context): void {
    const parent = trace.getSpan(parentContext);
    const scope = scopeOf(span.name) ?? (parent ? this.scopes.get(parent) : undefined);
    if (scope !== undefined) this.scopes.set(span, scope);
  }

  onEnd(span: ReadableSpan): void {
    const scope = this.scopes.get(span) ?? '-';
    const name = span.name.startsWith('git ') ? 'git' : span.name.startsWith('tool ') ? 'tool' : span.name;
    const key = `${scope} / ${name}`;
    const [seconds, nanos] = span.duration;
    const sum = this.sums.get(key) ?? { n: 0, ms: 0 };
    sum.n += 1;
    sum.ms += seconds * 1000 + nanos / 1e6;
    this.sums.set(key, sum);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Registers a tracer provider that sums this process's spans (nothing is exported). */
export function recordPhases(): PhaseRecorder {
  const processor = new PhaseProcessor();
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  provider.register();
  // A provider registered before (tracing on in this process) would keep every span: say so, not report nothing.
  const registered = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
  if (registered !== provider)
    throw new Error('another tracer provider is registered: phases cannot be recorded');
  return {
    totals: () =>
      Object.fromEntries(
        [...processor.sums].map(([key, sum]) => [key, { n: sum.n, ms: Math.round(sum.ms) }]),
      ),
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** Adds the totals of several processes together. */
export function mergePhases(all: readonly PhaseTotals[]): PhaseTotals {
  const merged: PhaseTotals = {};
  for (const totals of all) {
    for (const [key, sum] of Object.entries(totals)) {
      const into = merged[key] ?? { n: 0, ms: 0 };
      merged[key] = { n: into.n + sum.n, ms: into.ms + sum.ms };
    }
  }
  return merged;
}

/** Names that repeat another row (the SDK's own span inside `model.request`). */
const LEFT_OUT = new Set(['anthropic.messages.create']);

/**
 * A markdown table of the phases: a row per `<scope> / <name>`, a column per build (`label`), each cell the spans'
 * count and mean wall time. `-` is what ran outside any session, merge or full sweep (apps started ahead for gates).
 */
export function phaseTable(builds: ReadonlyArray<{ label: string; phases: PhaseTotals }>): string[] {
  const keys = [...new Set(builds.flatMap((build) => Object.keys(build.phases)))]
    .filter((key) => !LEFT_OUT.has(key.split(' / ')[1] ?? ''))
    .sort();
  const cell = (sum: { n: number; ms: number } | undefined) =>
    sum ? `${sum.n} × ${(sum.ms / sum.n / 1000).toFixed(2)} s` : '—';
  return [
    `| phase | ${builds.map((build) => build.label).join(' | ')} |`,
    `|---|${builds.map(() => '---').join('|')}|`,
    ...keys.map((key) => `| ${key} | ${builds.map((build) => cell(build.phases[key])).join(' | ')} |`),
  ];
}
