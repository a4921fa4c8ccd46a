/** The benchmark sections in order, the results file and the report. */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs, parseNames } from './cli-names.js';
import { type OvernightOptions, overnightOptionsOf } from './overnight.js';
import { RECOVERY_PARTS, type RecoveryPart } from './recovery.js';
import { repetitions, reportedRepetitions } from './repetitions.js';
import { renderReport } from './report.js';
import { BenchResults, type Repetitions } from './results.js';
import {
  appStart,
  dashboardAtScale,
  demoRuns,
  evaluatorStart,
  groundedVerdicts,
  lanesAtScale,
  type Mark,
  mergeQueueTimes,
  overnightRun,
  parallelLanes,
  progress,
  recordedChecks,
  recoveryAfterKills,
  SCALE_LATENCY_MS,
  SECTIONS,
  type Section,
  scaleRuns,
  sharedFileLanes,
} from './section-measures.js';
import { sampleLoad } from './stats.js';
import { targetRows } from './targets.js';

const RESULTS_PATH = fileURLToPath(new URL('./results/latest.json', import.meta.url));
const REPORT_PATH = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

/** What a bare `npm run bench` measures: the meal-planner night and the 200-feature lanes run take hours, so they run only when named. */
const DEFAULT_SECTIONS = SECTIONS.filter(
  (section) => section !== 'overnight-meal-planner' && section !== 'lanes-200',
);

/** How each section's load samples are labelled (so a partial rerun replaces only its own). */
const SECTION_LABEL: Record<Section, string> = {
  demo: 'demo runs',
  evaluator: 'evaluator start',
  'app-start': 'app start',
  scale: 'scale:',
  dashboard: 'dashboard:',
  recovery: 'recovery:',
  checks: 'checks:',
  lanes: 'lanes:',
  'lanes-shared': 'lanes-shared:',
  'merge-queue': 'merge-queue:',
  'lanes-200': 'lanes-200:',
  grounding: 'grounding:',
  overnight: 'overnight:',
  'overnight-meal-planner': 'overnight-meal-planner:',
};

/** Measures a section, or keeps its stored figures (and their load samples) when `--only` leaves it out. */
interface SectionRunner {
  mark: Mark;
  /** The stored figures of a section not measured now, with its load samples carried over. */
  keep<T>(key: Section, stored: T): T;
  /** Measures `key` when selected; otherwise its stored figures, which must exist. */
  run<T>(key: Section, measureIt: () => Promise<T>, stored: T | undefined): Promise<T>;
  /** Carries over the stored load samples whose label starts with `label` (a part of a section kept). */
  keepLoad(label: string): void;
}

/** The runner of one benchmark: it records load samples in `load` and measurement times in `measuredAt`. */
function sectionRunner(
  only: ReadonlySet<Section>,
  started: number,
  record: { load: BenchResults['machine']['load']; measuredAt: Partial<Record<Section, string>> },
  previous?: BenchResults,
): SectionRunner {
  const { load, measuredAt } = record;
  const mark: Mark = (key, name) => {
    load.push({ ...sampleLoad(), section: name });
    measuredAt[key] = new Date().toISOString();
    progress(name, started);
  };
  const keepLoad = (label: string) =>
    load.push(...(previous?.machine.load ?? []).filter((s) => s.section.startsWith(label)));
  const keep = <T>(key: Section, stored: T): T => {
    keepLoad(SECTION_LABEL[key]);
    return stored;
  };
  const run = async <T>(key: Section, measureIt: () => Promise<T>, stored: T | undefined): Promise<T> => {
    if (only.has(key)) return measureIt();
    if (stored === undefined)
      throw new Error(`--only leaves out "${key}", but bench/results/latest.json has none`);
    return keep(key, stored);
  };
  return { mark, keep, run, keepLoad };
}

/** Every section's figures, measured in order or kept from `previous`. */
async function measureSections(
  quick: boolean,
  only: ReadonlySet<Section>,
  context: {
    runner: SectionRunner;
    started: number;
    overnight: Record<'todo' | 'meal-planner', OvernightOptions>;
    recoveryParts: ReadonlySet<RecoveryPart>;
  },
  previous?: BenchResults,
) {
  const { runner, started } = context;
  const { mark, keep, run } = runner;
  const reps = repetitions(quick);
  const demo = await run('demo', () => demoRuns(reps, mark), previous?.demo);
  const evaluator = await run('evaluator', () => evaluatorStart(reps, mark), previous?.evaluator);
  // Older results have no app-start section: it is then simply absent.
  const appStartFigures = only.has('app-start')
    ? await appStart(reps, mark)
    : keep('app-start', previous?.appStart);
  const scale = await run('scale', () => scaleRuns(reps, mark), previous?.scale);
  const dashboard = await run('dashboard', () => dashboardAtScale(reps, mark), previous?.dashboard);
  // Older results have no recovery section either.
  const recovery = only.has('recovery')
    ? await recoveryAfterKills(reps, { runner, started, parts: context.recoveryParts }, previous)
    : keep('recovery', previous?.recovery);
  // Older results have no checks section either.
  const checks = only.has('checks') ? await recordedChecks(reps, mark) : keep('checks', previous?.checks);
  const lanes = only.has('lanes')
    ? await parallelLanes(quick, mark, started)
    : keep('lanes', previous?.lanes);
  // Older results have no shared-file lanes section either.
  const lanesShared = only.has('lanes-shared')
    ? await sharedFileLanes(quick, mark, started)
    : keep('lanes-shared', previous?.lanesShared);
  // Older results have no merge-queue section either.
  const mergeQueue = only.has('merge-queue')
    ? await mergeQueueTimes(quick, mark, started)
    : keep('merge-queue', previous?.mergeQueue);
  // Older results have no 200-feature lanes section either.
  const lanesScale = only.has('lanes-200')
    ? await lanesAtScale(quick, mark, started)
    : keep('lanes-200', previous?.lanesScale);
  // Older results have no grounding section either.
  const grounding = only.has('grounding')
    ? await groundedVerdicts(mark, started)
    : keep('grounding', previous?.grounding);
  // Older results have no overnight section either.
  const overnightFigures = only.has('overnight')
    ? await overnightRun(context.overnight.todo, mark, started)
    : keep('overnight', previous?.overnight);
  const overnightMealPlanner = only.has('overnight-meal-planner')
    ? await overnightRun(context.overnight['meal-planner'], mark, started)
    : keep('overnight-meal-planner', previous?.overnightMealPlanner);
  return {
    demo,
    evaluator,
    appStart: appStartFigures,
    scale,
    dashboard,
    recovery,
    checks,
    lanes,
    lanesShared,
    mergeQueue,
    lanesScale,
    grounding,
    overnight: overnightFigures,
    overnightMealPlanner,
  };
}

/** The repetitions each section (and recovery part) is measured with. */
const REPETITIONS_OF: Partial<Record<Section | RecoveryPart, Array<keyof Repetitions>>> = {
  demo: ['demoRuns'],
  evaluator: ['evaluatorColdRounds', 'evaluatorWarmRounds'],
  'app-start': ['appStarts', 'appDepsStarts'],
  scale: ['scaleRuns'],
  dashboard: ['dashboardApiRepetitions', 'dashboardPageLoads'],
  workers: ['recoveryKillsPerMode'],
  sentinel: ['recoveryFailovers'],
  checks: ['checkReplays'],
};

function measuredRepetitions(only: ReadonlySet<Section>, parts: ReadonlySet<RecoveryPart>) {
  const measured = [...only, ...(only.has('recovery') ? parts : [])];
  return measured.flatMap((name) => REPETITIONS_OF[name] ?? []);
}

/**
 * Measures the sections in `only` (all by default); the others are taken from `previous` (latest.json), so one
 * section can be rerun on a quiet machine without the whole 15-minute benchmark.
 */
async function measure(
  quick: boolean,
  only: ReadonlySet<Section>,
  options: {
    overnight: Record<'todo' | 'meal-planner', OvernightOptions>;
    recoveryParts: ReadonlySet<RecoveryPart>;
  },
  previous?: BenchResults,
): Promise<BenchResults> {
  const started = Date.now();
  const reps = repetitions(quick);
  const load: BenchResults['machine']['load'] = [];
  const measuredAt: Partial<Record<Section, string>> = { ...previous?.sectionsMeasuredAt };
  const runner = sectionRunner(only, started, { load, measuredAt }, previous);
  const sections = await measureSections(quick, only, { runner, started, ...options }, previous);
  load.push({ ...sampleLoad(), section: 'end' });
  progress('end', started);
  const measured = {
    generatedAt: new Date().toISOString(),
    durationMs: Date.now() - started,
    sectionsMeasuredAt: measuredAt,
    machine: { cores: os.cpus().length, node: process.version, load },
    repetitions: reportedRepetitions(
      reps,
      measuredRepetitions(only, options.recoveryParts),
      previous?.repetitions,
    ),
    simulatedModelLatencyMs: { demo: 0, scale: SCALE_LATENCY_MS },
    ...sections,
  };
  return BenchResults.parse({ ...measured, targets: targetRows(measured) });
}

/** The stored results with their target rows recomputed (after a change to the targets or their notes). */
function rejudge(file: string): BenchResults {
  const stored = BenchResults.parse(JSON.parse(readFileSync(file, 'utf8')));
  return { ...stored, targets: targetRows(stored) };
}

/** Runs the benchmark (or only re-renders the report) and writes both files. */
export async function main(argv: string[]): Promise<void> {
  const values = parseBenchArgs(argv);
  const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  const overnight = overnightOptionsOf({
    features: number(values.features),
    compression: number(values.compression),
    seed: number(values.seed),
  });
  const only = parseNames('--only', values.only, SECTIONS, DEFAULT_SECTIONS);
  const recoveryParts = parseNames('--recovery', values.recovery, RECOVERY_PARTS);
  const partial = only.size < SECTIONS.length || recoveryParts.size < RECOVERY_PARTS.length;
  const previous = partial ? rejudge(RESULTS_PATH) : undefined;
  const results = values['report-only']
    ? rejudge(RESULTS_PATH)
    : await measure(values.quick ?? false, only, { overnight, recoveryParts }, previous);
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(REPORT_PATH, renderReport(results));
  for (const row of results.targets) {
    process.stdout.write(`${row.met ? 'met   ' : 'MISSED'}  ${row.name}: ${row.measured}\n`);
  }
  process.stdout.write(`wrote ${RESULTS_PATH} and ${REPORT_PATH}\n`);
}
