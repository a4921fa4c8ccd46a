import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../../cli/telemetry.js';
import { createDashboardApp } from '../../../dashboard/server.js';
import { startRun } from '../../../orchestrator/start-run.js';
import demoPolicy from '../../../testkit/policies/demo.js';
import { NightshiftMetrics } from '../../../workers/metrics.js';
import { type MetricsServer, startMetricsServer } from '../../../workers/metrics-server.js';
import { createRunHarness, type RunHarness, shortTodoSpec, waitFor } from '../runs/harness.js';

// One small real run (one feature: initializer, generator, evaluator) watched three ways at once, to keep CI short:
// the worker's /metrics, the dashboard's /metrics, and the spans an in-process OTLP/HTTP receiver gets.

interface ReceivedSpan {
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** A tiny OTLP/HTTP receiver: keeps every JSON body POSTed to /v1/traces. */
async function startReceiver(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function spansOf(bodies: readonly string[]): ReceivedSpan[] {
  return bodies.flatMap((body) => {
    const parsed = JSON.parse(body) as {
      resourceSpans: { scopeSpans: { spans: ReceivedSpan[] }[] }[];
    };
    return parsed.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
  });
}

/** Prometheus text → `name{labels}` → value (comments skipped). */
function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    series.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return series;
}

/** Sum of the series of `name` whose labels include every `label="value"` given. */
function total(series: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [key, value] of series) {
    if (key !== name && !key.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([label, wanted]) => key.includes(`${label}="${wanted}"`))) sum += value;
  }
  return sum;
}

let harness: RunHarness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let tracing: Tracing | undefined;
let metricsServer: MetricsServer;
let metrics: NightshiftMetrics;

beforeAll(async () => {
  receiver = await startReceiver();
  tracing = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  harness = await createRunHarness(demoPolicy);
  const { orchestrator } = harness;
  metrics = new NightshiftMetrics({
    store: orchestrator.store,
    queues: [orchestrator.queues.sessions, orchestrator.queues.control],
  });
  metricsServer = await startMetricsServer(metrics, { port: 0 });
  await harness.startWorker({ metrics });
});

afterAll(async () => {
  await metricsServer?.close();
  await harness?.close();
  await tracing?.shutdown();
  await receiver?.close();
}, 120_000);

describe('metrics and traces of a small run', () => {
  it('counts sessions, tokens and verdicts on both /metrics, and exports secret-free spans', async () => {
    const { orchestrator } = harness;
    const run = await startRun(orchestrator, {
      specPath: shortTodoSpec(harness.root, 1),
      workspace: { kind: 'local', dir: path.join(harness.root, 'todo') },
      config: harness.config(),
      dataDir: harness.dataDir,
    });
    const final = await waitFor(
      'the run to end',
      async () => {
        const current = await orchestrator.store.getRun(run.id);
        return ['done', 'failed', 'paused', 'cancelled'].includes(current.status) ? current : undefined;
      },
      420_000,
    );
    expect(final.status, `${final.status} ${final.detail ?? ''}`).toBe('done');

    // The worker's own endpoint, over HTTP. The run is done once the last result is recorded; the worker's job
    // ends a moment later (on a loaded machine, a scrape can fall in between), so wait for nothing in flight.
    const worker = await waitFor(
      'the worker with no session in flight',
      async () => {
        const response = await fetch(metricsServer.url);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toContain('text/plain');
        const scraped = parseMetrics(await response.text());
        return total(scraped, 'nightshift_worker_sessions_in_flight') === 0 ? scraped : undefined;
      },
      30_000,
    );
    for (const role of ['initializer', 'generator', 'evaluator']) {
      expect(
        total(worker, 'nightshift_sessions_total', { role, outcome: 'completed' }),
        role,
      ).toBeGreaterThan(0);
    }
    expect(total(worker, 'nightshift_session_duration_seconds_count', { role: 'evaluator' })).toBeGreaterThan(
      0,
    );
    expect(total(worker, 'nightshift_model_cost_usd_total')).toBeGreaterThan(0);
    expect(total(worker, 'nightshift_model_requests_total')).toBeGreaterThan(0);
    expect(total(worker, 'nightshift_evaluator_verdicts_total', { verdict: 'pass' })).toBeGreaterThan(0);
    expect(total(worker, 'nightshift_tool_calls_total')).toBeGreaterThan(0);
    // The pass gate replayed the check it recorded: counted where it ran.
    expect(
      total(worker, 'nightshift_check_replays_total', { where: 'gate', result: 'pass' }),
    ).toBeGreaterThan(0);
    expect(worker.has('nightshift_queue_jobs{queue="sessions",state="waiting"}')).toBe(true);
    expect(total(worker, 'nightshift_worker_sessions_in_flight')).toBe(0);

    // The dashboard's, from the run's event log (the same counts: one worker did everything).
    const app = await createDashboardApp({
      store: orchestrator.store,
      queue: [orchestrator.queues.sessions],
      dataDir: harness.dataDir,
    });
    const scraped = await app.request('http://127.0.0.1/metrics', { headers: { host: '127.0.0.1' } });
    expect(scraped.status).toBe(200);
    const dashboard = parseMetrics(await scraped.text());
    for (const role of ['initializer', 'generator', 'evaluator']) {
      const labels = { role, outcome: 'completed' };
      expect(total(dashboard, 'nightshift_sessions_total', labels), role).toBe(
        total(worker, 'nightshift_sessions_total', labels),
      );
    }
    expect(total(dashboard, 'nightshift_model_tokens_total')).toBe(
      total(worker, 'nightshift_model_tokens_total'),
    );
    expect(total(dashboard, 'nightshift_check_replays_total')).toBe(
      total(worker, 'nightshift_check_replays_total'),
    );
    // A second scrape reads on from where the first stopped: nothing counted twice.
    const again = parseMetrics(
      await (await app.request('http://127.0.0.1/metrics', { headers: { host: '127.0.0.1' } })).text(),
    );
    expect(total(again, 'nightshift_sessions_total')).toBe(total(dashboard, 'nightshift_sessions_total'));
    // Behind the token like the API.
    const guarded = await createDashboardApp({
      store: orchestrator.store,
      dataDir: harness.dataDir,
      token: 'a-dashboard-token-of-24-chars',
    });
    expect((await guarded.request('http://127.0.0.1/metrics')).status).toBe(401);
    const bearer = { headers: { authorization: 'Bearer a-dashboard-token-of-24-chars' } };
    expect((await guarded.request('http://127.0.0.1/metrics', bearer)).status).toBe(200);

    // Traces: every kind of span arrived, and no attribute holds a key.
    await tracing?.flush();
    const spans = await waitFor('spans', async () => {
      const received = spansOf(receiver.bodies);
      return received.some((span) => span.name === 'session evaluator') ? received : undefined;
    });
    const names = new Set(spans.map((span) => span.name));
    for (const name of [
      'session initializer',
      'session generator',
      'session evaluator',
      'model.request',
      'app.start',
      // Where a session's time goes between its model requests (docs/operations.md, Traces).
      'workspace.prepare',
      'session.open',
      'backup.mirror',
      'role.prepare',
      'role.finish',
      'session.integrity',
      'session.close',
      'session.record',
      'app.copy',
      'checks.replay',
    ]) {
      expect(names, name).toContain(name);
    }
    expect([...names].some((name) => name.startsWith('tool '))).toBe(true);
    expect([...names].some((name) => name.startsWith('git '))).toBe(true);
    const everything = receiver.bodies.join('\n');
    for (const secret of ['sk-ant-scripted-000000', 'sk-scripted-000000'])
      expect(everything).not.toContain(secret);
    const session = spans.find((span) => span.name === 'session generator');
    expect(session?.attributes.map((attribute) => attribute.key)).toContain('nightshift.run_id');
    console.log(
      `[observability] ${spans.length} spans (${names.size} names), worker metrics: ${total(worker, 'nightshift_sessions_total')} sessions`,
    );
  }, 480_000);
});
