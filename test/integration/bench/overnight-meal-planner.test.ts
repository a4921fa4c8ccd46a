// The overnight bench's meal-planner wiring, for real and small: the quickstart-style loop (agent loop, git, bash)
// builds the meal planner's first 2 features with the simulated model over HTTP, every `npm ci` of sql.js and dayjs
// served by verdaccio on the loopback (offline, on the package cache), never the internet. Seed 46's schedule
// leaves F-002 (log out) half done on its first try: its menu entry never inserted, which the loop's curl check
// (POST /logout) cannot see, so the loop claims both features and the judge of the final code finds F-002 broken.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERNIGHT_EXAMPLES } from '../../../bench/overnight-examples.js';
import { buildWithQuickstart } from '../../../bench/overnight-quickstart.js';
import type { AppRegistry } from '../../../testkit/app-registry.js';
import { appRegistryRequirement, startOfflineAppRegistry } from '../../app-registry.js';

const packageCache = appRegistryRequirement();
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-overnight-meal-planner-'));
let registry: AppRegistry | undefined;
beforeAll(async () => {
  packageCache.check();
  if (!packageCache.skip) registry = await startOfflineAppRegistry();
});
afterAll(async () => {
  await registry?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe.skipIf(packageCache.skip)('the quickstart-style loop on the meal planner', () => {
  it('installs from the loopback registry, and claims a half-done feature its curl check cannot see', async () => {
    const build = await buildWithQuickstart({
      example: OVERNIGHT_EXAMPLES['meal-planner'],
      npmRegistry: registry?.url,
      seed: 46,
      compression: 200,
      features: 2,
      dir: path.join(root, 'ws'),
    });
    const story = JSON.stringify(build);
    expect(build.mistakesMade, story).toEqual({ halfDone: 1 });
    // Initializer, F-001, F-002: both self-checks green.
    expect(build.sessions, story).toBe(3);
    expect(build.claimedPassing, story).toBe(2);
    expect(build.passing, story).toBe(1);
    expect(build.falsePasses, story).toBe(1);
    expect(registry?.log()).toMatch(/GET \/sql\.js\/-\/sql\.js-1\.17\.0\.tgz/);
    expect(build.costUsd).toBeGreaterThan(0);
  }, 600_000);
});
