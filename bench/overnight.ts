/**
 * The overnight benchmark (issue 28): the todo example built to done by the simulated model (testkit/simulated) three
 * ways — nightshift with 1 lane, nightshift with 4 lanes on two worker processes, and a quickstart-style loop
 * (bench/overnight-quickstart.ts) — with the same seed, so the same latencies and mistakes. Figures are projected to
 * real turn times: model waits times the compression, harness time as measured.
 */

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { LatencyOptions } from '../testkit/simulated/options.js';
import { OvernightBuild, PRICED_AS } from './overnight-figures.js';
import { buildWithNightshift } from './overnight-nightshift.js';
import { buildWithQuickstart } from './overnight-quickstart.js';

/** The example the simulated model can build with all its mistakes (regressions are todo-only). */
export const OVERNIGHT_EXAMPLE = 'todo';
/** The todo example's features. */
export const OVERNIGHT_MAX_FEATURES = 8;
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

/** Options of the section (`--features`, `--compression`, `--seed`; env NSBENCH_COMPRESSION). */
export const OvernightOptions = z.object({
  features: z.number().int().min(1).max(OVERNIGHT_MAX_FEATURES).default(OVERNIGHT_MAX_FEATURES),
  compression: z.number().positive().default(DEFAULT_COMPRESSION),
  seed: z.number().int().default(DEFAULT_SEED),
});
export type OvernightOptions = z.infer<typeof OvernightOptions>;

/** Builds the example three ways and measures each. */
export async function measureOvernight(
  input: z.input<typeof OvernightOptions>,
  log: (line: string) => void = () => undefined,
): Promise<OvernightResult> {
  const options = OvernightOptions.parse(input);
  const common = { seed: options.seed, compression: options.compression, features: options.features };
  const builds: OvernightBuild[] = [];
  const report = (build: OvernightBuild) => {
    builds.push(build);
    log(
      `${build.label}: ${build.status} ${build.passing}/${build.features} working, ${build.sessions} sessions, ` +
        `${Math.round(build.measuredWallMs / 1000)} s measured, ${Math.round(build.projectedWallMs / 60_000)} min projected`,
    );
  };
  for (const lanes of [1, 4]) report(await buildWithNightshift({ ...common, lanes, timeoutMs: 3_600_000 }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsbench-quickstart-'));
  try {
    report(await buildWithQuickstart({ ...common, dir: path.join(dir, 'ws') }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const latency = LatencyOptions.parse({});
  return {
    example: OVERNIGHT_EXAMPLE,
    features: options.features,
    seed: options.seed,
    compression: options.compression,
    latency: { medianMs: latency.medianMs, p95Ms: latency.p95Ms },
    pricedAs: PRICED_AS,
    builds,
  };
}
