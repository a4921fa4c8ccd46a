/**
 * Parallel lanes (issue 16): the same 24-feature spec of independent features built with 1, 2, 4 and 8 lanes by two
 * worker processes, with a simulated model latency per request. Wall time from the first session's start to the
 * run's end, the sessions, the merge queue's outcomes (conflicts seen and resolved) and commits lost.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { RunEvent } from '../orchestrator/events.js';
import type { RunRecord, SessionRecord } from '../orchestrator/run/index.js';
import { startRun } from '../orchestrator/start-run.js';
import { startModelServer } from '../testkit/server.js';
import { createLanesWorkspace, lanesPolicy } from './lanes-run.js';
import { nightshiftPhases } from './overnight-phases.js';
import { mergePhases, PhaseTotals } from './phase-spans.js';
import { allEvents, peakOverlap, spawnWorker, type WorkerChild } from './scale.js';
import type { WorkerProcessConfig, WorkerProcessReport } from './scale-protocol.js';
import { BENCH_REDIS_URL, benchRunConfig, openBenchEnv, waitForRunsToEnd } from './wiring.js';

/** One build of the spec with `lanes` lanes. */
export const LanesRun = z.object({
  lanes: z.number().int(),
  status: z.string(),
  passing: z.number().int(),
  wallMs: z.number(),
  sessions: z.number().int(),
  /** Most sessions of the run at once. */
  peakConcurrentSessions: z.number().int(),
  merges: z.object({
    merged: z.number().int(),
    conflict: z.number().int(),
    rejected: z.number().int(),
    error: z.number().int(),
  }),
  /** Commits recorded by sessions that are not in the run branch's final history. */
  commitsLost: z.number().int(),
  modelRequests: z.number().int(),
  /** Merges whose conflicts the harness resolved by rule (issue 29; 0 in results recorded before). */
  mechanical: z.number().int().default(0),
  /** Merge-queue steps (trains) that took those merges: merges ÷ steps is the mean train (absent before 2026-12-03). */
  mergeSteps: z.number().int().optional(),
  /** Features blocked because their lane kept conflicting with the run branch. */
  blockedByConflicts: z.number().int().default(0),
  /**
   * Commands the Redis server processed during the build and the bytes it sent (INFO stats; the bench's Redis serves
   * nothing else then). Absent in results recorded before 2026-12-03.
   */
  redis: z.object({ commands: z.number().int(), outputBytes: z.number().int() }).optional(),
  /** Wall time with a lane's passed feature waiting for or in the merge queue (overlaps counted once). */
  mergeQueueMs: z.number().optional(),
  /**
   * CPU the two worker processes and their reaped children (git, apps under test, Chromium) used, from start to
   * stop: divided by the cores, a floor under the wall time no number of lanes can go below.
   */
  cpuMs: z.number().optional(),
  /** Recorded-check replays by where they ran (merge, sweep, gate, full_sweep). */
  replays: z.record(z.string(), z.number().int()).optional(),
  /** The longest pause of either worker process's event loop during the build, ms (absent before the evening of 2026-12-04). */
  eventLoopMaxMs: z.number().optional(),
  /** Both workers' spans summed by phase (bench/phase-spans.ts), when recorded (`NSBENCH_PHASES=1`). */
  phases: PhaseTotals.optional(),
});
export type LanesRun = z.infer<typeof LanesRun>;

/** The lanes section of the benchmark. */
export const LanesResult = z.object({
  features: z.number().int(),
  latencyMs: z.number(),
  workers: z.number().int(),
  /** Every how many features one adds a line to the shared file (4 in results recorded before issue 29). */
  sharedEvery: z.number().int().positive().default(4),
  runs: z.array(LanesRun),
});
export type LanesResult = z.infer<typeof LanesResult>;

/** Builds the spec once per lane count (or `builds` times) and measures each build. */
export async function measureLanes(options: {
  laneCounts: readonly number[];
  features: number;
  latencyMs: number;
  /** Every how many features one also adds a line to the shared file (default 4; 1: every feature). */
  sharedEvery?: number;
  /** Builds per lane count where more than one (the report takes the median wall time of them). */
  builds?: Readonly<Record<number, number>>;
  log?: (line: string) => void;
}): Promise<LanesResult> {
  const runs: LanesRun[] = [];
  const sharedEvery = options.sharedEvery ?? 4;
  for (const lanes of options.laneCounts) {
    const builds = options.builds?.[lanes] ?? 1;
    for (let build = 1; build <= builds; build++) {
      const run = await buildWithLanes(lanes, options.features, options.latencyMs, sharedEvery);
      const which = builds > 1 ? ` (build ${build} of ${builds})` : '';
      options.log?.(
        `${lanes} lane(s)${which}: ${run.status} ${run.passing}/${options.features} in ${Math.round(run.wallMs / 1000)} s`,
      );
      runs.push(run);
    }
  }
  return { features: options.features, latencyMs: options.latencyMs, workers: 2, sharedEvery, runs };
}

/** Events kept and read per build: a 200-feature run writes far more than the store's default bound. */
const EVENTS_KEPT = 1_000_000;

/** Builds the lanes spec of `features` features once with `lanes` lanes on two worker processes and measures it. */
export async function buildWithLanes(
  lanes: number,
  features: number,
  latencyMs: number,
  sharedEvery: number,
): Promise<LanesRun> {
  const env = openBenchEnv(`lanes${lanes}`);
  const server = await startModelServer({ policy: lanesPolicy(latencyMs, sharedEvery) });
  const children: WorkerChild[] = [];
  try {
    const workspace = path.join(env.root, 'ws');
    createLanesWorkspace(workspace, features);
    const run = await startRun(env.orchestrator, {
      specPath: path.join(workspace, 'app_spec.md'),
      workspace: { kind: 'local', dir: workspace },
      config: benchRunConfig({ lanes, budgets: { maxSessions: 1_000, maxCostUsd: null } }),
      dataDir: env.dataDir,
    });
    // Two worker processes with a slot for every lane plus the merge queue between them.
    const config: WorkerProcessConfig = {
      redisUrl: BENCH_REDIS_URL,
      prefix: env.prefix,
      dataDir: env.dataDir,
      concurrency: Math.max(1, Math.ceil((lanes + 1) / 2)),
      anthropicBaseURL: server.anthropicBaseURL,
      eventLogMaxLength: EVENTS_KEPT,
      phases: process.env.NSBENCH_PHASES === '1',
    };
    children.push(spawnWorker(config), spawnWorker(config));
    await Promise.all(children.map((worker) => worker.ready));
    const redisBefore = await redisStats(env.orchestrator.redis);
    const [ended] = await waitForRunsToEnd(env.orchestrator, [run.id], 3 * 3_600_000);
    const redisAfter = await redisStats(env.orchestrator.redis);
    for (const worker of children) worker.child.send({ type: 'stop' });
    const reports = await Promise.all(children.map((worker) => worker.report.catch(() => undefined)));
    const { sessions } = await env.orchestrator.store.listSessions(run.id, { limit: 10_000 });
    const events = await allEvents(env.orchestrator, run.id, EVENTS_KEPT);
    if (process.env.NSBENCH_DEBUG) writeDebugLines(sessions, events, process.env.NSBENCH_DEBUG);
    return {
      lanes,
      status: ended?.status ?? 'unknown',
      passing: ended?.features.passing ?? 0,
      ...sessionFigures(sessions, events, ended),
      commitsLost: lostCommits(workspace, sessions).length,
      modelRequests: server.requests.length,
      redis: {
        commands: redisAfter.commands - redisBefore.commands,
        outputBytes: redisAfter.outputBytes - redisBefore.outputBytes,
      },
      mergeQueueMs: nightshiftPhases({ sessions, events, compression: 1 }, [0, 0]).mergeQueue,
      replays: replaysByWhere(events),
      cpuMs: workerCpuMs(reports),
      ...eventLoopOf(reports),
      ...phasesOf(reports),
    };
  } finally {
    for (const worker of children) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await server.close();
    await env.close();
  }
}

/** The longest event-loop pause of the workers that reported it. */
function eventLoopOf(reports: ReadonlyArray<WorkerProcessReport | undefined>): { eventLoopMaxMs?: number } {
  const pauses = reports.flatMap((report) =>
    report?.eventLoopMaxMs === undefined ? [] : [report.eventLoopMaxMs],
  );
  return pauses.length > 0 ? { eventLoopMaxMs: Math.max(...pauses) } : {};
}

/** The workers' phase totals added together, when they recorded them. */
function phasesOf(reports: ReadonlyArray<WorkerProcessReport | undefined>): { phases?: PhaseTotals } {
  const recorded = reports.flatMap((report) => (report?.phases ? [report.phases] : []));
  return recorded.length > 0 ? { phases: mergePhases(recorded) } : {};
}

/** Wall time, session counts and merge outcomes of one build. */
function sessionFigures(
  sessions: readonly SessionRecord[],
  events: readonly RunEvent[],
  ended: RunRecord | undefined,
): Pick<
  LanesRun,
  | 'wallMs'
  | 'sessions'
  | 'peakConcurrentSessions'
  | 'merges'
  | 'mergeSteps'
  | 'mechanical'
  | 'blockedByConflicts'
> {
  const merges = { merged: 0, conflict: 0, rejected: 0, error: 0 };
  let mechanical = 0;
  let blockedByConflicts = 0;
  for (const event of events) {
    if (event.type === 'lane.merge') merges[event.outcome] += 1;
    if (event.type === 'lane.merge' && (event.resolved?.length ?? 0) > 0) mechanical += 1;
    if (event.type === 'feature.blocked' && /conflicted with the run branch/.test(event.reason))
      blockedByConflicts += 1;
  }
  const starts = sessions.map((session) => Date.parse(session.startedAt));
  const ends = sessions.filter((s) => s.finishedAt).map((s) => Date.parse(s.finishedAt as string));
  const finishedAt = Date.parse(ended?.finishedAt ?? new Date().toISOString());
  return {
    wallMs: Math.max(finishedAt, ...ends) - Math.min(...starts),
    sessions: sessions.length,
    peakConcurrentSessions: peakOverlap(
      sessions
        .filter((s) => s.finishedAt)
        .map((s) => [Date.parse(s.startedAt), Date.parse(s.finishedAt as string)] as const),
    ),
    merges,
    mergeSteps: new Set(events.flatMap((event) => (event.type === 'lane.merge' ? [event.seq] : []))).size,
    mechanical,
    blockedByConflicts,
  };
}

/** The server's running totals of commands processed and bytes sent (INFO stats). */
async function redisStats(redis: Redis): Promise<{ commands: number; outputBytes: number }> {
  const info = await redis.info('stats');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { commands: field('total_commands_processed'), outputBytes: field('total_net_output_bytes') };
}

/** CPU of the worker processes that reported (the build's harness, apps and browsers). */
function workerCpuMs(reports: ReadonlyArray<WorkerProcessReport | undefined>): number {
  return Math.round(
    reports.reduce(
      (sum, report) => sum + (report ? report.cpuUserMs + report.cpuSystemMs + report.childrenCpuMs : 0),
      0,
    ),
  );
}

/** Checks replayed per site, from the run's `check.replayed` events. */
function replaysByWhere(events: readonly RunEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of events)
    if (event.type === 'check.replayed')
      counts[event.where] = (counts[event.where] ?? 0) + event.passed.length + event.failed.length;
  return counts;
}

/** The sessions' commits that did not reach the workspace's HEAD. */
function lostCommits(workspace: string, sessions: readonly SessionRecord[]): string[] {
  const commits = sessions.flatMap((session) => session.commits);
  return commits.filter(
    (sha) => spawnSync('git', ['-C', workspace, 'merge-base', '--is-ancestor', sha, 'HEAD']).status !== 0,
  );
}

/** NSBENCH_DEBUG: one stderr line per session and merge; `events`: also the run's key events as JSON. */
function writeDebugLines(
  sessions: readonly SessionRecord[],
  events: readonly RunEvent[],
  debug: string,
): void {
  const t0 = Math.min(...sessions.map((session) => Date.parse(session.startedAt)));
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  for (const session of [...sessions].sort((a, b) => a.seq - b.seq)) {
    // Where the session's time went (the overnight bench's phases, of this session alone).
    const own = nightshiftPhases({ sessions: [session], events: [], compression: 1 }, [0, 0]);
    const agent = nightshiftPhases({ sessions: [session], events: [...events], compression: 1 }, [0, 0]);
    process.stderr.write(
      `#${session.seq} lane ${session.lane ?? '-'} ${session.role} ${session.featureIds.join(',')} start +${seconds(Date.parse(session.startedAt) - t0)} s, ${seconds(session.durationMs ?? 0)} s (${session.steps ?? 0} turns; model ${seconds(agent.modelWait)}, tools ${seconds(agent.toolsBash)}, browser ${seconds(agent.evaluationBrowser)}, app start ${seconds(agent.appStart)}, git/handoff ${seconds(agent.gitHandoff)}; all ${seconds(own.gitHandoff + own.appStart)})\n`,
    );
  }
  for (const event of events) {
    if (event.type === 'lane.merge')
      process.stderr.write(
        `merge #${event.seq} lane ${event.lane} ${event.outcome} at +${((Date.parse(event.at) - t0) / 1000).toFixed(1)} s\n`,
      );
  }
  if (debug !== 'events') return;
  for (const event of events) {
    if (
      event.type === 'session.finished' ||
      event.type === 'verdict.applied' ||
      event.type === 'lane.merge' ||
      event.type === 'feature.blocked' ||
      event.type === 'verdict.ungrounded'
    )
      process.stderr.write(`${JSON.stringify(event).slice(0, 400)}\n`);
  }
}
