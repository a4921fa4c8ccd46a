/**
 * Fills the example apps' package cache (test/app-registry-storage) from the npm registry with exactly the packages
 * of their lockfiles, pinned: verdaccio runs once as a caching proxy and `npm ci` installs each lockfile through it.
 * Idempotent: when every tarball is there and matches its lockfile integrity, it does nothing. Run by
 * scripts/setup.sh; tests and benchmarks then run verdaccio offline on that storage (testkit/app-registry.ts).
 * Usage: tsx scripts/fill-app-registry.ts [--check]   (--check: only report, exit 1 when something is missing)
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  APP_REGISTRY_STORAGE,
  type LockedPackage,
  lockedPackages,
  missingPackages,
  startAppRegistry,
} from '../testkit/app-registry.js';
import { MEAL_PLANNER_LOCKFILE } from '../testkit/policies/meal-planner/sources.js';

const run = promisify(execFile);

/** The lockfiles whose packages the cache holds. */
const LOCKFILES = [MEAL_PLANNER_LOCKFILE];
const UPSTREAM = process.env.NIGHTSHIFT_UPSTREAM_REGISTRY ?? 'https://registry.npmjs.org/';

function names(packages: readonly LockedPackage[]): string {
  return packages.map((pkg) => `${pkg.name}@${pkg.version}`).join(', ');
}

/** Installs one lockfile through the registry, in a throwaway folder with a throwaway npm cache. */
async function installThrough(registryUrl: string, lockfile: string): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ns-fill-registry-'));
  try {
    await copyFile(lockfile, path.join(dir, 'package-lock.json'));
    await copyFile(path.join(path.dirname(lockfile), 'package.json'), path.join(dir, 'package.json'));
    await run(
      'npm',
      [
        'ci',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        '--registry',
        registryUrl,
        '--cache',
        path.join(dir, '.npm-cache'),
      ],
      { cwd: dir, timeout: 600_000 },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const packages = LOCKFILES.flatMap(lockedPackages);
  const missing = missingPackages(APP_REGISTRY_STORAGE, packages);
  if (missing.length === 0) {
    console.error(
      `fill-app-registry: the package cache holds all ${packages.length} packages (${names(packages)})`,
    );
    return 0;
  }
  if (process.argv.includes('--check')) {
    console.error(
      `fill-app-registry: missing from ${APP_REGISTRY_STORAGE}: ${names(missing)}; run scripts/setup.sh`,
    );
    return 1;
  }
  console.error(`fill-app-registry: fetching ${names(missing)} from ${UPSTREAM}`);
  await mkdir(APP_REGISTRY_STORAGE, { recursive: true });
  const registry = await startAppRegistry({ uplink: UPSTREAM });
  try {
    for (const lockfile of LOCKFILES) await installThrough(registry.url, lockfile);
  } finally {
    await registry.stop();
  }
  const still = missingPackages(APP_REGISTRY_STORAGE, packages);
  if (still.length > 0) {
    console.error(
      `fill-app-registry: still missing or not matching the lockfile after the install: ${names(still)}`,
    );
    return 1;
  }
  console.error(`fill-app-registry: the package cache holds all ${packages.length} packages`);
  return 0;
}

process.exitCode = await main();
