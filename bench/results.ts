/** The shape of bench/results/latest.json. */
import { z } from 'zod';
import { AppStartResult } from './app-start.js';
import { ChecksResult } from './checks.js';
import { DashboardResult } from './dashboard.js';
import { DemoSection } from './demo-section.js';
import { EvaluatorStartResult } from './evaluator-start.js';
import { GroundingResult } from './grounding.js';
import { LanesResult } from './lanes.js';
import { LanesScaleResult } from './lanes-scale.js';
import { MergeQueueResult } from './merge-queue.js';
import { OvernightResult } from './overnight.js';
import { RecoveryResult } from './recovery.js';
import { ScaleResult } from './scale.js';
import { LoadSample } from './stats.js';

/** One DESIGN.md performance target, measured. */
export const TargetRow = z.object({
  name: z.string(),
  target: z.string(),
  measured: z.string(),
  met: z.boolean(),
  /** Where missed (or close): what bounds the figure and what would move it. */
  note: z.string().optional(),
});
export type TargetRow = z.infer<typeof TargetRow>;

/** How much was repeated, so readers can judge the spread. */
export const Repetitions = z.object({
  demoRuns: z.number().int(),
  evaluatorColdRounds: z.number().int(),
  evaluatorWarmRounds: z.number().int(),
  scaleRuns: z.record(z.string(), z.number().int()),
  dashboardApiRepetitions: z.number().int(),
  dashboardPageLoads: z.number().int(),
  /** Starts of the demo app per variant (box, box without network, no box). */
  appStarts: z.number().int().optional(),
  /** Starts of the meal planner from a fresh copy per variant (with the dependency cache, without). */
  appDepsStarts: z.number().int().optional(),
  /** Worker kills per mode (one worker restarted; a second one running) and per variant. */
  recoveryKillsPerMode: z.number().int().optional(),
  /** Redis master kills under Sentinel, in one run. */
  recoveryFailovers: z.number().int().optional(),
  /** Replays of the demo's recorded checks on one app. */
  checkReplays: z.number().int().optional(),
});
export type Repetitions = z.infer<typeof Repetitions>;

/** Everything one `npm run bench` measured. */
export const BenchResults = z.object({
  generatedAt: z.string(),
  durationMs: z.number(),
  /** When each section was last measured (`--only` reruns some and keeps the others). */
  sectionsMeasuredAt: z.record(z.string(), z.string()).optional(),
  machine: z.object({
    cores: z.number().int(),
    node: z.string(),
    /** Load average before each section and at the end: other work on the machine makes figures noisy. */
    load: z.array(LoadSample.extend({ section: z.string() })),
  }),
  repetitions: Repetitions,
  simulatedModelLatencyMs: z.object({ demo: z.number(), scale: z.number() }),
  demo: DemoSection,
  evaluator: EvaluatorStartResult,
  /** App start with and without the box (absent in results recorded before the box). */
  appStart: AppStartResult.optional(),
  scale: z.object({ single: z.array(ScaleResult), shared: ScaleResult }),
  dashboard: DashboardResult,
  /** Recovery after a worker kill (absent in results recorded before it). */
  recovery: RecoveryResult.optional(),
  /** Recorded checks vs an LLM evaluation (absent in results recorded before them). */
  checks: ChecksResult.optional(),
  /** Parallel lanes: one spec built with 1, 2, 4 and 8 lanes (absent in results recorded before them). */
  lanes: LanesResult.optional(),
  /** Lanes on a shared file: every feature adds a line to one file, 1 and 4 lanes (absent before issue 29). */
  lanesShared: LanesResult.optional(),
  /** Merge-queue time per merge with a browser as the app grows (absent before issue 29's figures). */
  mergeQueue: MergeQueueResult.optional(),
  /** The lanes spec at 24 and 200 features with 4 lanes (absent before 2026-12-03). */
  lanesScale: LanesScaleResult.optional(),
  /** Grounded verdicts as models write them (absent in results recorded before them). */
  grounding: GroundingResult.optional(),
  /** The overnight run: the example built by the simulated model three ways (absent in results recorded before it). */
  overnight: OvernightResult.optional(),
  /** The same with the meal-planner example (absent in results recorded before it). */
  overnightMealPlanner: OvernightResult.optional(),
  targets: z.array(TargetRow),
});
export type BenchResults = z.infer<typeof BenchResults>;
