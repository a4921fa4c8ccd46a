/**
 * The app's dependency cache (handoff/app-deps.ts): copy + install + start of the meal planner (sql.js and dayjs
 * from verdaccio on the loopback, offline) from a fresh app copy, through `startFreshApp` as evaluations start it,
 * in the box (bubblewrap, network `registries`), with the run's cache and without it. Variants alternate round by
 * round so machine load falls on both alike; one discarded warm-up of the cached variant keeps the first install.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { startFreshApp } from '../evaluation/fresh-app.js';
import { checkpoint, ensureRepo, type WorkspaceRepo } from '../handoff/git.js';
import { startAppRegistry } from '../testkit/app-registry.js';
import { assembleMealPlannerApp } from '../testkit/policies/meal-planner/assemble.js';
import { Spread, spread } from './stats.js';

/** The dependency cache section of the report (ms from the copy's start to the app's first HTTP answer). */
export const AppDepsResult = z.object({
  withCache: z.object({ readyMs: Spread }),
  withoutCache: z.object({ readyMs: Spread }),
  /** Median without the cache divided by median with it. */
  speedup: z.number().nullable(),
  /** Requests for the app's tarballs the registry answered during the measured rounds with the cache (0 expected). */
  tarballRequestsWithCache: z.number().int(),
});
export type AppDepsResult = z.infer<typeof AppDepsResult>;

type Variant = 'withCache' | 'withoutCache';

/** The meal planner's skeleton (the server, its lockfile and init.sh) committed into a new workspace. */
async function mealPlannerWorkspace(root: string): Promise<WorkspaceRepo> {
  const dir = path.join(root, 'ws');
  const repo = await ensureRepo(dir);
  await assembleMealPlannerApp(dir, { upTo: 0 });
  await checkpoint(repo, { role: 'initializer', runId: 'bench', session: 1, summary: 'skeleton' });
  return repo;
}

/** Measures `starts` app starts per variant. */
export async function measureAppDeps(options: { starts: number }): Promise<AppDepsResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'ns-bench-deps-'));
  const registry = await startAppRegistry();
  const samples: Record<Variant, number[]> = { withCache: [], withoutCache: [] };
  let tarballRequestsWithCache = 0;
  let session = 0;
  try {
    const repo = await mealPlannerWorkspace(root);
    const once = async (variant: Variant): Promise<number> => {
      session += 1;
      const tarballsBefore = tarballRequests(registry.log());
      const started = performance.now();
      const result = await startFreshApp(
        {
          runId: 'bench-deps',
          session,
          dataDir: path.join(root, 'data'),
          sandbox: { sandbox: 'bubblewrap', network: 'registries', npmRegistry: registry.url },
          appReadyTimeoutMs: 180_000,
          appDependencyCache: variant === 'withCache',
        },
        repo,
        variant,
      );
      const readyMs = performance.now() - started;
      if (!result.ok) throw new Error(`the meal planner did not start (${variant}): ${result.reason}`);
      await result.app.stop();
      if (variant === 'withCache')
        tarballRequestsWithCache += tarballRequests(registry.log()) - tarballsBefore;
      return readyMs;
    };
    // The warm-up installs once and keeps the tree (its tarball requests are not counted).
    await once('withCache');
    tarballRequestsWithCache = 0;
    for (let round = 0; round < options.starts; round++) {
      const order: Variant[] =
        round % 2 === 0 ? ['withCache', 'withoutCache'] : ['withoutCache', 'withCache'];
      for (const variant of order) samples[variant].push(await once(variant));
    }
  } finally {
    await registry.stop();
    await rm(root, { recursive: true, force: true });
  }
  const withCache = spread(samples.withCache);
  const withoutCache = spread(samples.withoutCache);
  return {
    withCache: { readyMs: withCache },
    withoutCache: { readyMs: withoutCache },
    speedup:
      withCache.median && withoutCache.median
        ? Number((withoutCache.median / withCache.median).toFixed(2))
        : null,
    tarballRequestsWithCache,
  };
}

/** How many tarball downloads verdaccio has logged so far. */
function tarballRequests(log: string): number {
  return log.match(/GET \/[^ ]+\/-\/[^ ]+\.tgz/g)?.length ?? 0;
}
