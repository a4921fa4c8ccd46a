/**
 * Scale: many tiny runs through real worker PROCESSES (bench/scale-worker.ts) with a fixed simulated model
 * latency: throughput, harness CPU and RSS per session, peak concurrency, and a check that no session of any
 * run was processed twice or overlapped another session of its run.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { RunEvent } from '../orchestrator/events.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import type { SessionRecord } from '../orchestrator/run/index.js';
import { startRun } from '../orchestrator/start-run.js';
import { startModelServer } from '../testkit/server.js';
import { type WorkerProcessConfig, WorkerProcessReport } from './scale-protocol.js';
import { Spread, spread } from './stats.js';
import { copyTinyWorkspace, createTinyTemplate, tinyPolicy } from './tiny-run.js';
import { BENCH_REDIS_URL, type BenchEnv, benchRunConfig, openBenchEnv, waitForRunsToEnd } from './wiring.js';

const WORKER_ENTRY = fileURLToPath(new URL('./scale-worker.ts', import.meta.url));

/** Per worker process: what it ran and what it cost. */
export const WorkerFigures = z.object({
  workerId: z.string(),
  concurrency: z.number().int(),
  sessions: z.number().int(),
  peakConcurrentSessions: z.number().int(),
  cpuMsPerSession: z.number(),
  childrenCpuMsPerSession: z.number(),
  rssBaselineMB: z.number(),
  rssPeakMB: z.number(),
  /** (peak − baseline RSS of the worker process) / peak concurrent sessions. */
  rssMBPerConcurrentSession: z.number(),
  treeRssPeakMB: z.number(),
});
export type WorkerFigures = z.infer<typeof WorkerFigures>;

/** One scale scenario's result. */
export const ScaleResult = z.object({
  workers: z.number().int(),
  concurrencyPerWorker: z.number().int(),
  runs: z.number().int(),
  latencyMs: z.number(),
  runsDone: z.number().int(),
  sessions: z.number().int(),
  wallMs: z.number(),
  sessionsPerMinute: z.number(),
  sessionDurationMs: Spread,
  perWorker: z.array(WorkerFigures),
  /** Problems found by the double-processing check; empty when every session ran exactly once, alone in its run. */
  doubleProcessing: z.array(z.string()),
  /** Jobs a worker picked but skipped (lock held elsewhere, stale): harmless, reported for completeness. */
  skippedJobs: z.number().int(),
});
export type ScaleResult = z.infer<typeof ScaleResult>;

/** A benchmark worker process (bench/scale-worker.ts) and its messages. */
export interface WorkerChild {
  child: ChildProcess;
  ready: Promise<{ workerId: string; startedAt: number }>;
  report: Promise<WorkerProcessReport>;
}

/** Forks a benchmark worker process with `config`. */
export function spawnWorker(config: WorkerProcessConfig): WorkerChild {
  const child = fork(WORKER_ENTRY, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NSBENCH_WORKER: JSON.stringify(config), NIGHTSHIFT_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`a benchmark worker process exited (${code})`))),
  );
  exited.catch(() => undefined);
  const ready = Promise.race([
    new Promise<{ workerId: string; startedAt: number }>((resolve) =>
      child.on('message', (message: { type?: string; workerId?: string; startedAt?: number }) => {
        if (message.type === 'ready')
          resolve({ workerId: String(message.workerId), startedAt: Number(message.startedAt) });
      }),
    ),
    exited,
  ]);
  const report = Promise.race([
    new Promise<WorkerProcessReport>((resolve) =>
      child.on('message', (message: { type?: string }) => {
        if (message.type === 'report') resolve(WorkerProcessReport.parse(message));
      }),
    ),
    exited,
  ]);
  return { child, ready, report };
}

/** Highest number of intervals open at once. */
export function peakOverlap(intervals: ReadonlyArray<readonly [number, number]>): number {
  const edges = intervals.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]) as Array<[number, number]>;
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, delta] of edges) {
    open += delta;
    peak = Math.max(peak, open);
  }
  return peak;
}

/** Every event of a run (up to `count`, 10,000 unless told). */
export async function allEvents(
  orchestrator: Orchestrator,
  runId: string,
  count = 10_000,
): Promise<RunEvent[]> {
  return (await orchestrator.store.readEvents(runId, { count })).map((entry) => entry.event);
}

/** What is wrong with a run's history: a seq started or finished more than once, or two sessions overlapping. */
export function doubleProcessingProblems(
  runId: string,
  events: readonly RunEvent[],
  sessions: readonly SessionRecord[],
): string[] {
  const problems: string[] = [];
  const counts = new Map<string, number>();
  for (const event of events) {
    const key =
      event.type === 'session.started' || event.type === 'session.finished'
        ? `${event.type}#${event.seq}`
        : event.type === 'agent' && event.event.type === 'session.started'
          ? `agent-loop#${event.seq}`
          : undefined;
    if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, count] of counts) if (count > 1) problems.push(`${runId}: ${key} ${count} times`);
  const ordered = [...sessions].sort((a, b) => a.seq - b.seq);
  ordered.forEach((session, index) => {
    if (session.seq !== index + 1) problems.push(`${runId}: seq ${index + 1} missing`);
    if (!session.finishedAt) problems.push(`${runId}: seq ${session.seq} never finished`);
    const next = ordered[index + 1];
    if (next && session.finishedAt && Date.parse(next.startedAt) < Date.parse(session.finishedAt))
      problems.push(`${runId}: seq ${next.seq} started before seq ${session.seq} finished`);
  });
  return problems;
}

/** Starts `count` tiny runs, each on its own copy of the tiny workspace; their ids. */
async function startTinyRuns(env: BenchEnv, count: number): Promise<string[]> {
  const template = path.join(env.root, 'template');
  createTinyTemplate(template);
  const runIds: string[] = [];
  for (let index = 0; index < count; index++) {
    const dir = path.join(env.root, `ws-${index}`);
    copyTinyWorkspace(template, dir);
    const run = await startRun(env.orchestrator, {
      specPath: path.join(template, 'app_spec.md'),
      workspace: { kind: 'local', dir },
      config: benchRunConfig(),
      dataDir: env.dataDir,
    });
    runIds.push(run.id);
  }
  return runIds;
}

/** Every session of the runs, and every sign that one was processed twice. */
async function sessionsAndProblems(
  orchestrator: Orchestrator,
  runIds: readonly string[],
): Promise<{ sessions: SessionRecord[]; problems: string[] }> {
  const sessions: SessionRecord[] = [];
  const problems: string[] = [];
  for (const runId of runIds) {
    const page = await orchestrator.store.listSessions(runId, { offset: 0, limit: 1000 });
    sessions.push(...page.sessions);
    problems.push(...doubleProcessingProblems(runId, await allEvents(orchestrator, runId), page.sessions));
  }
  return { sessions, problems };
}

/** Runs one scale scenario: `runs` tiny runs shared by `workers` worker processes of `concurrency` each. */
export async function measureScale(options: {
  workers: number;
  concurrency: number;
  runs: number;
  latencyMs: number;
  timeoutMs?: number;
}): Promise<ScaleResult> {
  const env = openBenchEnv(`scale${options.workers}x${options.concurrency}`);
  const server = await startModelServer({ policy: tinyPolicy(options.latencyMs) });
  const children: WorkerChild[] = [];
  try {
    const runIds = await startTinyRuns(env, options.runs);
    const config: WorkerProcessConfig = {
      redisUrl: BENCH_REDIS_URL,
      prefix: env.prefix,
      dataDir: env.dataDir,
      concurrency: options.concurrency,
      anthropicBaseURL: server.anthropicBaseURL,
    };
    for (let index = 0; index < options.workers; index++) children.push(spawnWorker(config));
    const ready = await Promise.all(children.map((worker) => worker.ready));
    const runs = await waitForRunsToEnd(env.orchestrator, runIds, options.timeoutMs ?? 600_000);
    for (const worker of children) worker.child.send({ type: 'stop' });
    const reports = await Promise.all(children.map((worker) => worker.report));
    const { sessions, problems } = await sessionsAndProblems(env.orchestrator, runIds);
    const finished = sessions.filter((session) => session.finishedAt);
    const start = Math.min(...ready.map((worker) => worker.startedAt));
    const end = Math.max(...finished.map((session) => Date.parse(session.finishedAt as string)));
    const completed = await env.orchestrator.queues.sessions.getJobs(['completed'], 0, 10_000);
    return {
      workers: options.workers,
      concurrencyPerWorker: options.concurrency,
      runs: options.runs,
      latencyMs: options.latencyMs,
      runsDone: runs.filter((run) => run.status === 'done').length,
      sessions: finished.length,
      wallMs: end - start,
      sessionsPerMinute: Number(((finished.length * 60_000) / (end - start)).toFixed(1)),
      sessionDurationMs: spread(
        finished.map((session) => session.durationMs ?? Number.NaN),
        0,
      ),
      perWorker: reports.map((report) => workerFigures(report, options.concurrency, finished)),
      doubleProcessing: problems,
      skippedJobs: completed.filter(
        (job) => (job.returnvalue as { kind?: string } | null)?.kind === 'skipped',
      ).length,
    };
  } finally {
    for (const worker of children) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await server.close();
    await env.close();
  }
}

function workerFigures(
  report: WorkerProcessReport,
  concurrency: number,
  sessions: readonly SessionRecord[],
): WorkerFigures {
  const mine = sessions.filter((session) => session.workerId === report.workerId);
  const peak = peakOverlap(
    mine.map((session) => [Date.parse(session.startedAt), Date.parse(session.finishedAt as string)] as const),
  );
  const mb = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(1));
  const per = (value: number) => Number((value / Math.max(1, mine.length)).toFixed(1));
  return {
    workerId: report.workerId,
    concurrency,
    sessions: mine.length,
    peakConcurrentSessions: peak,
    cpuMsPerSession: per(report.cpuUserMs + report.cpuSystemMs),
    childrenCpuMsPerSession: per(report.childrenCpuMs),
    rssBaselineMB: mb(report.rssBaselineBytes),
    rssPeakMB: mb(report.rssPeakBytes),
    rssMBPerConcurrentSession: mb((report.rssPeakBytes - report.rssBaselineBytes) / Math.max(1, peak)),
    treeRssPeakMB: mb(report.treeRssPeakBytes),
  };
}
