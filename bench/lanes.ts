/**
 * Parallel lanes (issue 16): the same 24-feature spec of independent features built with 1, 2, 4 and 8 lanes by two
 * worker processes, with a simulated model latency per request. Wall time from the first session's start to the
 * run's end, the sessions, the merge queue's outcomes (conflicts seen and resolved) and commits lost.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { RunEvent } from '../orchestrator/events.js';
import type { RunRecord, SessionRecord } from '../orchestrator/run/index.js';
import { startRun } from '../orchestrator/start-run.js';
import { startModelServer } from '../testkit/server.js';
import { createLanesWorkspace, lanesPolicy } from './lanes-run.js';
import { nightshiftPhases } from './overnight-phases.js';
import { mergePhases, PhaseTotals, phaseTable } from './phase-spans.js';
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

/** Builds the spec once per lane count and measures each build. */
export async function measureLanes(options: {
  laneCounts: readonly number[];
  features: number;
  latencyMs: number;
  /** Every how many features one also adds a line to the shared file (default 4; 1: every feature). */
  sharedEvery?: number;
  log?: (line: string) => void;
}): Promise<LanesResult> {
  const runs: LanesRun[] = [];
  const sharedEvery = options.sharedEvery ?? 4;
  for (const lanes of options.laneCounts) {
    const run = await buildWithLanes(lanes, options.features, options.latencyMs, sharedEvery);
    options.log?.(
      `${lanes} lane(s): ${run.status} ${run.passing}/${options.features} in ${Math.round(run.wallMs / 1000)} s`,
    );
    runs.push(run);
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
      ...phasesOf(reports),
    };
  } finally {
    for (const worker of children) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await server.close();
    await env.close();
  }
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

/** The speed-up of `lanes` lanes over one, from the wall times (null when either is missing). */
export function speedup(result: LanesResult, lanes: number): number | null {
  const one = result.runs.find((run) => run.lanes === 1);
  const many = result.runs.find((run) => run.lanes === lanes);
  if (!one || !many || many.wallMs <= 0) return null;
  return Number((one.wallMs / many.wallMs).toFixed(2));
}

/** The target row: ≥ 3× faster at 4 lanes than at 1, every feature passing, no commit lost (issue 16). */
export function lanesTargetRow(
  result: LanesResult | undefined,
): Array<{ name: string; target: string; measured: string; met: boolean; note?: string }> {
  if (!result) return [];
  const at4 = speedup(result, 4);
  const complete = result.runs.every((run) => run.passing === result.features && run.commitsLost === 0);
  const walls = result.runs.map((run) => `${run.lanes}: ${Math.round(run.wallMs / 1000)} s`).join(', ');
  const conflicts = result.runs.reduce((sum, run) => sum + run.merges.conflict, 0);
  const met = at4 !== null && at4 >= 3 && complete;
  return [
    {
      name: 'parallel lanes',
      target: `${result.features} independent features, 2 worker processes: ≥ 3× faster at 4 lanes than at 1, 0 commits lost (issue 16)`,
      measured: `${at4 ?? '?'}× at 4 lanes (wall ${walls}); ${conflicts} merge conflicts seen and resolved; ${result.runs.reduce((sum, run) => sum + run.commitsLost, 0)} commits lost`,
      met,
      ...(met
        ? {}
        : {
            note: lanesMissNote(result),
          }),
    },
  ];
}

/** Why 4 lanes fall short of 3× (the figures of this result, the profiles of 2026-12-03 in words). */
function lanesMissNote(result: LanesResult, cores = os.cpus().length): string {
  const one = result.runs.find((run) => run.lanes === 1);
  const four = result.runs.find((run) => run.lanes === 4);
  const trains =
    four?.mergeSteps && four.mergeSteps > 0
      ? ` (${four.merges.merged} merges in ${four.mergeSteps} trains)`
      : '';
  const floor =
    one && four?.cpuMs !== undefined
      ? ` The 4-lane build used ${Math.round(four.cpuMs / 1000)} s of CPU: even with all ${cores} cores busy all the time it could not take less than ${Math.round(four.cpuMs / 1000 / cores)} s, at most ${(one.wallMs / (four.cpuMs / cores)).toFixed(2)}× the 1-lane build's ${Math.round(one.wallMs / 1000)} s${one.cpuMs !== undefined ? ` (which used ${Math.round(one.cpuMs / 1000)} s)` : ''}.`
      : '';
  return (
    'A lane no longer waits for the merge queue: its passed feature frees its place and the next feature starts ' +
    `meanwhile (pipelining), and the queue merges what waits in trains${trains}.${floor} ` +
    "Where that CPU goes (2026-12-03, process accounting over 4-lane builds of this spec): with Chromium's " +
    "headless shell, Chromium about a third, the worker processes (the harness, Playwright's driver, the browser " +
    'gate) about a third, git and the process that starts it about a fifth. The harness runs about 110 git ' +
    'processes per feature. Started from the worker, each froze its event loop for 22 ms (Node forks the ~280 MB ' +
    'worker) and cost it 7 ms of CPU; a process helper has started them since 2026-12-03 (core/spawn-helper.ts: one ' +
    '4-lane build 106 → 91 s, its CPU 152 → 128 s), and since 2026-12-04 the helper is a Python program where Python ' +
    "3 is installed (CPython starts a child with vfork): the helper's CPU in a 4-lane build fell from 12.6 s to 3.4 s, " +
    'the build from about 112 s of CPU to about 100 s. Since 2026-12-04 a lane branch is pushed once, by its ' +
    'session, pass gates, merge steps and sweeps borrow kept browser contexts instead of opening new ones, and a ' +
    'boxed evaluator refreshes no backup mirror (this bench runs unboxed): in 4-lane builds side by side, 82 → 74 s ' +
    "and 105 → 91 s of CPU with all three. Since that afternoon a lane's sync fetches nothing when the run's " +
    'repository has not moved past the clone (an evaluator after its own generator: lane fetches 34 → 17 a build), ' +
    "and the mirror's refresh overlaps the session's first model request (tools wait for it). A lane's feature " +
    "waits for the model (4 requests of 1.5 s), for its sessions' git handoffs (a generator's fetch, the push: " +
    "0.3–0.7 s each under load) and for the evaluator's app start (about 0.9 s under load; the app copy's fetch " +
    "alone 0.25 s). Tried and left out: starting the evaluator's app during the model's first request " +
    '(its first tool call waiting for it) made 4-lane builds slower here, 86–87 s against 78–81 s and 8 s more CPU: ' +
    'with both cores busy, overlapping moves work, it does not remove it. Phase by phase (2026-12-04 evening, ' +
    '`NSBENCH_PHASES=1`, a 1-lane build of 209 s against a 4-lane one of 81 s; docs/lanes.md has the table): a ' +
    "generator session's time outside its two model requests grows from about 0.4 s to 2.1 s; an evaluator's is " +
    "3.9 s at 4 lanes (an app copy of 0.54 s and a start of 0.35 s, twice: its own app and the pass gate's); a " +
    "lane's generator runs 44 git processes (24 serially) at 43 ms each " +
    'under load (15 ms at 1 lane), its evaluator 40 at 61 ms: git is about 2 s of every lane session. ' +
    "Figures move with the machine's load by up " +
    'to 1.6× in a day. Would move it: fewer git processes per session and merge (each fetch or push starts 6), and ' +
    'more cores.'
  );
}

/** A build's worker CPU and that CPU spread over the machine's cores: the least wall time it could have taken. */
export function cpuCell(run: LanesRun, cores = os.cpus().length): string {
  if (run.cpuMs === undefined) return '—';
  return `${(run.cpuMs / 1000).toFixed(0)} s (${(run.cpuMs / 1000 / cores).toFixed(0)} s on ${cores})`;
}

/** The report's lanes section. */
export function lanesSection(result: LanesResult | undefined, load: string): string {
  if (!result) return '';
  const rows = result.runs.map(
    (run) =>
      `| ${run.lanes} | ${run.status} ${run.passing}/${result.features} | ${(run.wallMs / 1000).toFixed(1)} s | ${speedup(result, run.lanes) ?? '—'}× | ${run.sessions} | ${run.peakConcurrentSessions} | ${run.merges.merged} / ${run.merges.conflict} / ${run.merges.rejected} / ${run.merges.error}${run.mergeSteps ? ` in ${run.mergeSteps} steps` : ''} | ${run.commitsLost} | ${run.modelRequests} | ${cpuCell(run)} |`,
  );
  return [
    '## Parallel lanes',
    '',
    `The same spec of ${result.features} independent features (every fourth also appends to one shared file, so lanes that run together conflict) built with 1, 2, 4 and 8 lanes by ${result.workers} worker processes, each with a slot per lane plus one for the merge queue. Every model request waits ${result.latencyMs} ms (a simulated model). One lane is the serial loop (no merge queue). Wall time is from the first session's start to the run's end. Worker CPU is what both worker processes and their children (git, the apps, Chromium) used; spread over the cores it is a floor under the wall time that no number of lanes can go below (absent in runs recorded before 2026-12-03). With \`NSBENCH_PHASES=1\` the workers also sum their OpenTelemetry spans by phase (a table below; docs/operations.md, Traces).`,
    '',
    '| lanes | run | wall time | speed-up | sessions | most at once | merges: merged / conflict / rejected / error | commits lost | model requests | worker CPU (over the cores) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Load average when this section started: ${load}.`,
    '',
    ...phasesPart(result),
  ].join('\n');
}

/** Where the builds' time went, phase by phase, when the workers recorded their spans (`NSBENCH_PHASES=1`). */
function phasesPart(result: LanesResult): string[] {
  const builds = result.runs.flatMap((run) =>
    run.phases ? [{ label: `${run.lanes} lane${run.lanes === 1 ? '' : 's'}`, phases: run.phases }] : [],
  );
  if (builds.length === 0) return [];
  return [
    "Where the time went (`NSBENCH_PHASES=1`: the harness's OpenTelemetry spans, summed by name under the session role, merge step or full sweep they ran in; spans nest, so rows overlap; `-`: outside any of them, e.g. apps started ahead for pass gates):",
    '',
    ...phaseTable(builds),
    '',
  ];
}
