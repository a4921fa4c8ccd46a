/** The benchmark sections in order, the results file and the report. */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
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
  };
}

function progress(message: string, started: number): void {
  const load = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  process.stderr.write(`[bench +${Math.round((Date.now() - started) / 1000)}s, load ${load}] ${message}\n`);
}

/** The sections `--only` can name, in the order they run. */
export const SECTIONS = ['demo', 'evaluator', 'scale', 'dashboard'] as const;
export type Section = (typeof SECTIONS)[number];

/** How each section's load samples are labelled (so a partial rerun replaces only its own). */
const SECTION_LABEL: Record<Section, string> = {
  demo: 'demo runs',
  evaluator: 'evaluator start',
  scale: 'scale:',
  dashboard: 'dashboard:',
};

/**
 * Measures the sections in `only` (all by default); the others are taken from `previous` (latest.json), so one
 * section can be rerun on a quiet machine without the whole 15-minute benchmark.
 */
async function measure(
  quick: boolean,
  only: ReadonlySet<Section>,
  previous?: BenchResults,
): Promise<BenchResults> {
  const started = Date.now();
  const reps = repetitions(quick);
  const load: BenchResults['machine']['load'] = [];
  const measuredAt: Partial<Record<Section, string>> = { ...previous?.sectionsMeasuredAt };
  const section = (key: Section, name: string) => {
    load.push({ ...sampleLoad(), section: name });
    measuredAt[key] = new Date().toISOString();
    progress(name, started);
  };
  const kept = <T>(key: Section, value: T | undefined): T => {
    if (value === undefined)
      throw new Error(`--only leaves out "${key}", but bench/results/latest.json has none`);
    load.push(...(previous?.machine.load ?? []).filter((s) => s.section.startsWith(SECTION_LABEL[key])));
    return value;
  };

  let demo = previous?.demo;
  if (only.has('demo')) {
    section('demo', 'demo runs (handoff, orientation, prefix, prompt overhead)');
    const records = [];
    for (let index = 0; index < reps.demoRuns; index++) records.push(await recordDemoRun());
    demo = demoSection(records);
  } else demo = kept('demo', demo);

  let evaluator = previous?.evaluator;
  if (only.has('evaluator')) {
    section('evaluator', 'evaluator start');
    evaluator = await measureEvaluatorStart({
      coldRounds: reps.evaluatorColdRounds,
      warmRounds: reps.evaluatorWarmRounds,
    });
  } else evaluator = kept('evaluator', evaluator);

  let scale = previous?.scale;
  if (only.has('scale')) {
    const single: ScaleResult[] = [];
    for (const concurrency of [1, 5, 20]) {
      section('scale', `scale: 1 worker, concurrency ${concurrency}`);
      const runs = reps.scaleRuns[`1x${concurrency}`] ?? concurrency;
      single.push(await measureScale({ workers: 1, concurrency, runs, latencyMs: SCALE_LATENCY_MS }));
    }
    section('scale', 'scale: 2 workers sharing 40 runs');
    const shared = await measureScale({
      workers: 2,
      concurrency: 10,
      runs: reps.scaleRuns['2x10'] ?? 40,
      latencyMs: SCALE_LATENCY_MS,
    });
    scale = { single, shared };
  } else scale = kept('scale', scale);

  let dashboard = previous?.dashboard;
  if (only.has('dashboard')) {
    section('dashboard', 'dashboard: 1,000 features, 2,000 sessions');
    dashboard = await measureDashboard({
      features: 1_000,
      sessions: 2_000,
      apiRepetitions: reps.dashboardApiRepetitions,
      pageLoads: reps.dashboardPageLoads,
    });
  } else dashboard = kept('dashboard', dashboard);
  load.push({ ...sampleLoad(), section: 'end' });
  progress('end', started);

  const measured = {
    generatedAt: new Date().toISOString(),
    durationMs: Date.now() - started,
    sectionsMeasuredAt: measuredAt,
    machine: { cores: os.cpus().length, node: process.version, load },
    repetitions: reps,
    simulatedModelLatencyMs: { demo: 0, scale: SCALE_LATENCY_MS },
    demo,
    evaluator,
    scale,
    dashboard,
  };
  return BenchResults.parse({ ...measured, targets: targetRows(measured) });
}

function parseOnly(value: string | undefined): Set<Section> {
  if (value === undefined) return new Set(SECTIONS);
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`--only ${unknown.join(',')}: unknown section; choose from ${SECTIONS.join(', ')}`);
  return new Set(names as Section[]);
}

/** The stored results with their target rows recomputed (after a change to the targets or their notes). */
function rejudge(file: string): BenchResults {
  const stored = BenchResults.parse(JSON.parse(readFileSync(file, 'utf8')));
  return { ...stored, targets: targetRows(stored) };
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
  const only = parseOnly(values.only);
  const previous = only.size < SECTIONS.length ? rejudge(RESULTS_PATH) : undefined;
  const results = values['report-only']
    ? rejudge(RESULTS_PATH)
    : await measure(values.quick ?? false, only, previous);
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(REPORT_PATH, renderReport(results));
  for (const row of results.targets) {
    process.stdout.write(`${row.met ? 'met   ' : 'MISSED'}  ${row.name}: ${row.measured}\n`);
  }
  process.stdout.write(`wrote ${RESULTS_PATH} and ${REPORT_PATH}\n`);
}
