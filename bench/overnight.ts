/**
 * The overnight benchmark (issue 28): an example (the todo app, or the meal planner: bench/overnight-examples.ts)
 * built to done by the simulated model (testkit/simulated) three ways — nightshift with 1 lane, nightshift with 4 lanes on two worker processes, and a quickstart-style loop
 * (bench/overnight-quickstart.ts) — with the same seed, so the same latencies and mistakes. Figures are projected to
 * real turn times: model waits times the compression, harness time as measured.
 */

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  APP_REGISTRY_STORAGE,
  lockedPackages,
  missingPackages,
  startAppRegistry,
} from '../testkit/app-registry.js';
import { MEAL_PLANNER_LOCKFILE } from '../testkit/policies/meal-planner/sources.js';
import { LatencyOptions } from '../testkit/simulated/options.js';
import { OVERNIGHT_EXAMPLES, OvernightExampleName } from './overnight-examples.js';
import { OvernightBuild, PRICED_AS } from './overnight-figures.js';
import { buildWithNightshift } from './overnight-nightshift.js';
import { buildWithQuickstart } from './overnight-quickstart.js';

/** Default compression: real turns (median 8 s, p95 40 s) divided by 25 keep the section near 12 minutes. */
export const DEFAULT_COMPRESSION = 25;
/**
 * Default seed: at the default rates its schedule gives the 8 features' first tries four kinds of mistake (no commit
 * on F-002, half done F-004, a start broken on F-006, a regression while building F-008), so a short night meets
 * most of what a long one does; bursts and false fails come on top.
 */
export const DEFAULT_SEED = 181;

/** The overnight section of the benchmark. */
export const OvernightResult = z.object({
  example: z.string(),
  features: z.number().int(),
  seed: z.number().int(),
  compression: z.number(),
  latency: z.object({ medianMs: z.number(), p95Ms: z.number() }),
  pricedAs: z.string(),
  builds: z.array(OvernightBuild),
});
export type OvernightResult = z.infer<typeof OvernightResult>;

/** Options of the section (`--features`, `--compression`, `--seed`; env NSBENCH_COMPRESSION); all features by default. */
export const OvernightOptions = z
  .object({
    example: OvernightExampleName.default('todo'),
    features: z.number().int().min(1).optional(),
    compression: z.number().positive().default(DEFAULT_COMPRESSION),
    seed: z.number().int().default(DEFAULT_SEED),
  })
  .transform((options) => ({
    ...options,
    features: Math.min(
      options.features ?? Number.POSITIVE_INFINITY,
      OVERNIGHT_EXAMPLES[options.example].maxFeatures,
    ),
  }));
export type OvernightOptions = z.infer<typeof OvernightOptions>;

/** The options of both overnight sections from the CLI's (`--features` is capped at each example's size). */
export function overnightOptionsOf(
  input: Omit<z.input<typeof OvernightOptions>, 'example'>,
): Record<OvernightExampleName, OvernightOptions> {
  return {
    todo: OvernightOptions.parse({ ...input, example: 'todo' }),
    'meal-planner': OvernightOptions.parse({ ...input, example: 'meal-planner' }),
  };
}

/** The package cache is missing packages the meal planner installs: what to run. */
export class PackageCacheMissingError extends Error {
  constructor(missing: string) {
    super(
      `the overnight meal-planner build needs ${missing} in ${APP_REGISTRY_STORAGE}; run scripts/setup.sh`,
    );
    this.name = 'PackageCacheMissingError';
  }
}

/**
 * Runs `build` with the loopback registry the example's npm installs from (verdaccio offline on the package cache:
 * nothing is fetched from the internet), or without one for an example that installs nothing.
 */
async function withRegistry<T>(installs: boolean, build: (npmRegistry: string | undefined) => Promise<T>) {
  if (!installs) return build(undefined);
  const missing = missingPackages(APP_REGISTRY_STORAGE, lockedPackages(MEAL_PLANNER_LOCKFILE));
  if (missing.length > 0) throw new PackageCacheMissingError(missing.map((pkg) => pkg.name).join(', '));
  const registry = await startAppRegistry({ storage: APP_REGISTRY_STORAGE });
  try {
    return await build(registry.url);
  } finally {
    await registry.stop();
  }
}

/** Builds the example three ways and measures each. */
export async function measureOvernight(
  input: z.input<typeof OvernightOptions>,
  log: (line: string) => void = () => undefined,
): Promise<OvernightResult> {
  const options = OvernightOptions.parse(input);
  const example = OVERNIGHT_EXAMPLES[options.example];
  const builds: OvernightBuild[] = [];
  const report = (build: OvernightBuild) => {
    builds.push(build);
    log(
      `${build.label}: ${build.status} ${build.passing}/${build.features} working, ${build.sessions} sessions, ` +
        `${Math.round(build.measuredWallMs / 1000)} s measured, ${Math.round(build.projectedWallMs / 60_000)} min projected`,
    );
  };
  await withRegistry(example.installs, async (npmRegistry) => {
    const common = { example, npmRegistry, seed: options.seed, compression: options.compression };
    const features = options.features;
    // An hour, or five minutes a feature for the bigger builds (a hung build must not hold the bench forever).
    const timeoutMs = Math.max(3_600_000, features * 300_000);
    for (const lanes of [1, 4]) report(await buildWithNightshift({ ...common, features, lanes, timeoutMs }));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsbench-quickstart-'));
    try {
      report(await buildWithQuickstart({ ...common, features, dir: path.join(dir, 'ws') }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  const latency = LatencyOptions.parse({});
  return {
    example: example.name,
    features: options.features,
    seed: options.seed,
    compression: options.compression,
    latency: { medianMs: latency.medianMs, p95Ms: latency.p95Ms },
    pricedAs: PRICED_AS,
    builds,
  };
}
