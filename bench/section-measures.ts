/** How each benchmark section is measured: the repetitions and sizes each one runs with, and its progress lines. */
import os from 'node:os';
import { measureAppDeps } from './app-deps.js';
import { measureAppStart } from './app-start.js';
import { measureChecks } from './checks.js';
import { measureDashboard } from './dashboard.js';
import { recordDemoRun } from './demo-runs.js';
import { demoSection } from './demo-section.js';
import { measureEvaluatorStart } from './evaluator-start.js';
import { measureGrounding } from './grounding.js';
import { measureLanes } from './lanes.js';
import { measureLanesScale } from './lanes-scale.js';
import { measureSharedLanes } from './lanes-shared.js';
import { measureMergeQueue } from './merge-queue.js';
import { measureOvernight, type OvernightOptions } from './overnight.js';
import { measureRecovery, RECOVERY_PARTS, type RecoveryPart } from './recovery.js';
import type { BenchResults, Repetitions } from './results.js';
import { measureScale, type ScaleResult } from './scale.js';

/** Simulated model latency per request in the scale runs (ms). */
export const SCALE_LATENCY_MS = 200;

/** A progress line on stderr with the time since the benchmark started and the load. */
export function progress(message: string, started: number): void {
  const load = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  process.stderr.write(`[bench +${Math.round((Date.now() - started) / 1000)}s, load ${load}] ${message}\n`);
}

/** The sections `--only` can name, in the order they run. */
export const SECTIONS = [
  'demo',
  'evaluator',
  'app-start',
  'scale',
  'dashboard',
  'recovery',
  'checks',
  'lanes',
  'lanes-shared',
  'merge-queue',
  'lanes-200',
  'grounding',
  'overnight',
  'overnight-meal-planner',
] as const;
export type Section = (typeof SECTIONS)[number];
/** Records that a section (or a part of it) starts: its load sample, its measurement time and a progress line. */
export type Mark = (key: Section, name: string) => void;

/** The demo section: whole demo runs (handoff, orientation, prefix, prompt overhead). */
export async function demoRuns(reps: Repetitions, mark: Mark) {
  mark('demo', 'demo runs (handoff, orientation, prefix, prompt overhead)');
  const records = [];
  for (let index = 0; index < reps.demoRuns; index++) records.push(await recordDemoRun());
  return demoSection(records);
}

/** The evaluator section: cold and warm evaluator starts. */
export async function evaluatorStart(reps: Repetitions, mark: Mark) {
  mark('evaluator', 'evaluator start');
  return measureEvaluatorStart({
    coldRounds: reps.evaluatorColdRounds,
    warmRounds: reps.evaluatorWarmRounds,
  });
}

/** The app-start section: the box against no box, and the meal planner's dependency cache. */
export async function appStart(reps: Repetitions, mark: Mark) {
  mark('app-start', 'app start (box vs no box)');
  const figures = await measureAppStart({ starts: reps.appStarts ?? 12 });
  mark('app-start', 'app start: dependency cache (meal planner)');
  return { ...figures, dependencyCache: await measureAppDeps({ starts: reps.appDepsStarts ?? 6 }) };
}

/** The scale section: one worker at concurrency 1, 5 and 20, then two workers sharing 40 runs. */
export async function scaleRuns(reps: Repetitions, mark: Mark) {
  const single: ScaleResult[] = [];
  for (const concurrency of [1, 5, 20]) {
    mark('scale', `scale: 1 worker, concurrency ${concurrency}`);
    const runs = reps.scaleRuns[`1x${concurrency}`] ?? concurrency;
    single.push(await measureScale({ workers: 1, concurrency, runs, latencyMs: SCALE_LATENCY_MS }));
  }
  mark('scale', 'scale: 2 workers sharing 40 runs');
  const runs = reps.scaleRuns['2x10'] ?? 40;
  const shared = await measureScale({ workers: 2, concurrency: 10, runs, latencyMs: SCALE_LATENCY_MS });
  return { single, shared };
}

/** The dashboard section: the API and page at 1,000 features and 2,000 sessions. */
export async function dashboardAtScale(reps: Repetitions, mark: Mark) {
  mark('dashboard', 'dashboard: 1,000 features, 2,000 sessions');
  return measureDashboard({
    features: 1_000,
    sessions: 2_000,
    apiRepetitions: reps.dashboardApiRepetitions,
    pageLoads: reps.dashboardPageLoads,
  });
}

/** Load labels of the recovery parts, so a part kept from latest.json keeps its load sample. */
const RECOVERY_LABEL: Record<RecoveryPart, string> = {
  workers: 'recovery: worker killed',
  sentinel: 'recovery: Redis master killed',
};

/** The recovery section: the parts in `context.parts` measured, the others kept from `previous`. */
export async function recoveryAfterKills(
  reps: Repetitions,
  context: {
    runner: { mark: Mark; keepLoad(label: string): void };
    started: number;
    parts: ReadonlySet<RecoveryPart>;
  },
  previous?: BenchResults,
) {
  const { runner, started, parts } = context;
  for (const part of RECOVERY_PARTS) if (!parts.has(part)) runner.keepLoad(RECOVERY_LABEL[part]);
  return measureRecovery({
    killsPerMode: reps.recoveryKillsPerMode ?? 3,
    failovers: reps.recoveryFailovers ?? 3,
    parts,
    ...(previous?.recovery ? { previous: previous.recovery } : {}),
    mark: (name) => runner.mark('recovery', name),
    log: (line) => progress(`recovery: ${line}`, started),
  });
}

/** The checks section: LLM evaluation of the demo features against replays of their recorded checks. */
export async function recordedChecks(reps: Repetitions, mark: Mark) {
  mark('checks', 'checks: LLM evaluation of the demo features vs replays of their recorded checks');
  return measureChecks({ replays: reps.checkReplays ?? 100 });
}

/** Simulated model latency per request in the lanes runs (ms): a fast model (real ones take 3–30 s per reply). */
const LANES_LATENCY_MS = 1_500;

/** The lanes section: independent features with 1, 2, 4 and 8 lanes (1 and 4, the target's pair, three times). */
export async function parallelLanes(quick: boolean, mark: Mark, started: number) {
  mark('lanes', 'lanes: 24 independent features with 1, 2, 4 and 8 lanes');
  return measureLanes({
    laneCounts: [1, 2, 4, 8],
    features: quick ? 12 : 24,
    latencyMs: LANES_LATENCY_MS,
    // One build per count moves ±5 s here: the speed-up is taken from the median of three.
    ...(quick ? {} : { builds: { 1: 3, 4: 3 } }),
    log: (line) => progress(`lanes: ${line}`, started),
  });
}

/** The lanes-shared section: every feature adds a line to one shared file, 1 and 4 lanes. */
export async function sharedFileLanes(quick: boolean, mark: Mark, started: number) {
  mark('lanes-shared', 'lanes-shared: every feature adds a line to one shared file, 1 and 4 lanes');
  return measureSharedLanes({
    features: quick ? 8 : 16,
    latencyMs: LANES_LATENCY_MS,
    log: (line) => progress(`lanes-shared: ${line}`, started),
  });
}

/** The merge-queue section: time per merge at 24, 100 and 200 passing features. */
export async function mergeQueueTimes(quick: boolean, mark: Mark, started: number) {
  mark('merge-queue', 'merge-queue: time per merge with a browser at 24, 100 and 200 passing features');
  return measureMergeQueue({
    sizes: quick ? [24, 100] : [24, 100, 200],
    merges: quick ? 3 : 5,
    allMerges: 1,
    log: (line) => progress(`merge-queue: ${line}`, started),
  });
}

/** The lanes-200 section: the lanes spec at 24 and 200 features with 4 lanes. */
export async function lanesAtScale(quick: boolean, mark: Mark, started: number) {
  mark('lanes-200', 'lanes-200: the lanes spec at 24 and 200 features with 4 lanes');
  return measureLanesScale({
    sizes: quick ? [12, 48] : [24, 200],
    lanes: 4,
    latencyMs: LANES_LATENCY_MS,
    log: (line) => progress(`lanes-200: ${line}`, started),
  });
}

/** The grounding section: every wording style of the grounding family on every demo feature. */
export async function groundedVerdicts(mark: Mark, started: number) {
  mark('grounding', 'grounding: every wording style of the grounding family on every demo feature');
  return measureGrounding({ log: (line) => progress(`grounding: ${line}`, started) });
}

/** The overnight section of `options.example` (`overnight` builds the todo app, `overnight-meal-planner` the meal planner). */
export async function overnightRun(options: OvernightOptions, mark: Mark, started: number) {
  const key: Section = options.example === 'todo' ? 'overnight' : 'overnight-meal-planner';
  mark(
    key,
    `${key}: ${options.features} ${options.example} features by the simulated model (${options.compression}× compressed), nightshift 1 and 4 lanes, quickstart loop`,
  );
  return measureOvernight(options, (line) => progress(`${key}: ${line}`, started));
}
