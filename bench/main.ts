/** The benchmark sections in order, the results file and the report. */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measureAppStart } from './app-start.js';
import { measureDashboard } from './dashboard.js';
import { recordDemoRun } from './demo-runs.js';
import { demoSection } from './demo-section.js';
import { measureEvaluatorStart } from './evaluator-start.js';
import { renderReport } from './report.js';
import { BenchResults, type Repetitions } from './results.js';
import { measureScale, type ScaleResult } from './scale.js';
import { sampleLoad } from './stats.js';
import { targetRows } from './targets.js';

const RESULTS_PATH = fileURLToPath(new URL('./results/latest.json', import.meta.url));
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

/** Simulated model latency per request in the scale runs (ms). */
const SCALE_LATENCY_MS = 200;

function repetitions(quick: boolean): Repetitions {
  return {
    demoRuns: 1,
    evaluatorColdRounds: quick ? 2 : 4,
    evaluatorWarmRounds: quick ? 3 : 8,
    // 20 runs are the least that can keep 20 sessions busy; 40 shared runs are the target itself.
    scaleRuns: quick
      ? { '1x1': 2, '1x5': 5, '1x20': 20, '2x10': 40 }
      : { '1x1': 4, '1x5': 10, '1x20': 20, '2x10': 40 },
    dashboardApiRepetitions: quick ? 5 : 21,
    dashboardPageLoads: quick ? 2 : 5,
    appStarts: quick ? 5 : 12,
  };
}

function progress(message: string, started: number): void {
  const load = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  process.stderr.write(`[bench +${Math.round((Date.now() - started) / 1000)}s, load ${load}] ${message}\n`);
}

async function measure(quick: boolean): Promise<BenchResults> {
  const started = Date.now();
  const reps = repetitions(quick);
  const load: BenchResults['machine']['load'] = [];
  const section = (name: string) => {
    load.push({ ...sampleLoad(), section: name });
    progress(name, started);
  };

  section('demo runs (handoff, orientation, prefix, prompt overhead)');
  const records = [];
  for (let index = 0; index < reps.demoRuns; index++) records.push(await recordDemoRun());
  const demo = demoSection(records);

  section('evaluator start');
  const evaluator = await measureEvaluatorStart({
    coldRounds: reps.evaluatorColdRounds,
    warmRounds: reps.evaluatorWarmRounds,
  });

  section('app start (box vs no box)');
  const appStart = await measureAppStart({ starts: reps.appStarts ?? 12 });

  const single: ScaleResult[] = [];
  for (const concurrency of [1, 5, 20]) {
    section(`scale: 1 worker, concurrency ${concurrency}`);
    const runs = reps.scaleRuns[`1x${concurrency}`] ?? concurrency;
    single.push(await measureScale({ workers: 1, concurrency, runs, latencyMs: SCALE_LATENCY_MS }));
  }
  section('scale: 2 workers sharing 40 runs');
  const shared = await measureScale({
    workers: 2,
    concurrency: 10,
    runs: reps.scaleRuns['2x10'] ?? 40,
    latencyMs: SCALE_LATENCY_MS,
  });

  section('dashboard: 1,000 features, 2,000 sessions');
  const dashboard = await measureDashboard({
    features: 1_000,
    sessions: 2_000,
    apiRepetitions: reps.dashboardApiRepetitions,
    pageLoads: reps.dashboardPageLoads,
  });
  section('end');

  const measured = {
    generatedAt: new Date().toISOString(),
    durationMs: Date.now() - started,
    machine: { cores: os.cpus().length, node: process.version, load },
    repetitions: reps,
    simulatedModelLatencyMs: { demo: 0, scale: SCALE_LATENCY_MS },
    demo,
    evaluator,
    appStart,
    scale: { single, shared },
    dashboard,
  };
  return BenchResults.parse({ ...measured, targets: targetRows(measured) });
}

/** The stored results with their target rows recomputed (after a change to the targets or their notes). */
function rejudge(file: string): BenchResults {
  const stored = BenchResults.parse(JSON.parse(readFileSync(file, 'utf8')));
  return { ...stored, targets: targetRows(stored) };
}

/** Measures one section again and merges it into the stored results (`--only app-start`). */
async function remeasure(file: string, only: string, quick: boolean): Promise<BenchResults> {
  // The section measured again is dropped first: its stored shape may be an older one.
  const { appStart: _replaced, ...rest } = JSON.parse(readFileSync(file, 'utf8'));
  const stored = BenchResults.parse(rest);
  if (only !== 'app-start') throw new Error(`--only knows app-start, not "${only}"`);
  const starts = repetitions(quick).appStarts ?? 12;
  const measured = {
    ...stored,
    repetitions: { ...stored.repetitions, appStarts: starts },
    appStart: await measureAppStart({ starts }),
  };
  return { ...measured, targets: targetRows(measured) };
}

/** Runs the benchmark (or only re-renders the report) and writes both files. */
export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      'report-only': { type: 'boolean', default: false },
      only: { type: 'string' },
    },
  });
  const quick = values.quick ?? false;
  const results = values['report-only']
    ? rejudge(RESULTS_PATH)
    : values.only
      ? await remeasure(RESULTS_PATH, values.only, quick)
      : await measure(quick);
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(REPORT_PATH, renderReport(results));
  for (const row of results.targets) {
    process.stdout.write(`${row.met ? 'met   ' : 'MISSED'}  ${row.name}: ${row.measured}\n`);
  }
  process.stdout.write(`wrote ${RESULTS_PATH} and ${REPORT_PATH}\n`);
}
