// The example apps' registry for tests: verdaccio offline on a free loopback port, serving the package cache that
// scripts/setup.sh fills. Without that cache a suite is skipped here and fails on CI (test/requirements.ts).

import {
  APP_REGISTRY_STORAGE,
  type AppRegistry,
  lockedPackages,
  missingPackages,
  startAppRegistry,
} from '../testkit/app-registry.js';
import { MEAL_PLANNER_LOCKFILE } from '../testkit/policies/meal-planner/sources.js';
import { type Requirement, requirement } from './requirements.js';

/** Whether the package cache holds every package of the example apps' lockfiles. */
export function appRegistryRequirement(): Requirement {
  const missing = missingPackages(APP_REGISTRY_STORAGE, lockedPackages(MEAL_PLANNER_LOCKFILE));
  const names = missing.map((pkg) => `${pkg.name}@${pkg.version}`).join(', ');
  return requirement(
    "the example apps' npm package cache",
    missing.length === 0,
    `${names} not in ${APP_REGISTRY_STORAGE}; run scripts/setup.sh (it fills the cache from the npm registry)`,
  );
}

/** Starts verdaccio offline (no uplink) on the package cache; stop it with `stop()`. */
export function startOfflineAppRegistry(): Promise<AppRegistry> {
  return startAppRegistry({ storage: APP_REGISTRY_STORAGE });
}
