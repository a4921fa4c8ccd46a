import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxInfo } from '../../box/bubblewrap.js';
import { CheckRunReport } from '../../cli/checks.js';
import { RunStatusJson } from '../../cli/status.js';
import type { AppRegistry } from '../../testkit/app-registry.js';
import { MEAL_PLANNER_SPEC_PATH } from '../../testkit/policies/meal-planner/sources.js';
import { withScriptedFeatureCount } from '../../testkit/policies/todo-features.js';
import { appRegistryRequirement, startOfflineAppRegistry } from '../app-registry.js';
import { requirement } from '../requirements.js';
import {
  cliEnv,
  createE2eContext,
  type E2eContext,
  runCliOnce,
  startScriptedServer,
  writeConfig,
} from './helpers.js';

// The meal-planner example built by nightshift, compressed: its first 12 features (a prefix is its own depends_on
// closure: dependencies are always earlier features), two lanes, the fast scripted model, through the real CLI.
// Every box (the generators' bash, init.sh and the app) is bubblewrap under the `registries` policy, and npm in it
// installs sql.js and dayjs from verdaccio on the loopback, named by `sandbox.npmRegistry`, never the internet.
// The run must end done with no feature blocked, and every recorded check must replay green at the end. Every app
// start after the first, and each new lane clone, gets the run's kept node_modules (handoff/app-deps.ts), so npm
// fetches sql.js only a few times in the whole run: without the cache it was once per evaluation, replay and merge.
const FEATURES = 12;
/**
 * Requests for sql.js's tarball the run may make (counted as requests: verdaccio logs each one three times): the
 * initializer's own check, the first app start after it (nothing kept yet), and `checks run` after the run was
 * tidied (tidying removes the cache); one more when two starts race before the first install is kept. Each new
 * lane clone is filled from the cache (handoff/app-deps.ts `fillClone`): without that, 5; without the cache at
 * all, one per app start, over 30.
 */
const MAX_SQL_JS_DOWNLOADS = 4;
const info = await sandboxInfo();
const bubblewrap = requirement('bubblewrap', info.bubblewrap, info.reason ?? 'not found');
const packageCache = appRegistryRequirement();

describe.skipIf(bubblewrap.skip || packageCache.skip)('a meal-planner run in two lanes', () => {
  let context: E2eContext;
  let registry: AppRegistry;
  beforeAll(async () => {
    bubblewrap.check();
    packageCache.check();
    context = createE2eContext('meal-planner-run');
    registry = await startOfflineAppRegistry();
  });
  afterAll(async () => {
    await registry?.stop();
    await context?.close();
  });

  it('ends done with no block, installing from the loopback registry, and every check replays green', async () => {
    const server = await startScriptedServer(context);
    const home = path.join(context.root, 'home');
    const configFile = writeConfig(context, {
      sandbox: {
        bubblewrap: 'required',
        network: 'registries',
        npmRegistry: `http://127.0.0.1:${registry.port}/`,
      },
    });
    const env = cliEnv(context, { home, configFile, anthropicBaseURL: server.anthropicBaseURL });
    const spec = path.join(context.root, 'meal-planner.md');
    fs.writeFileSync(
      spec,
      withScriptedFeatureCount(fs.readFileSync(MEAL_PLANNER_SPEC_PATH, 'utf8'), FEATURES),
    );
    const workspace = path.join(context.root, 'meal-planner');
    const started = Date.now();
    const out = await runCliOnce(['run', spec, '--workspace', workspace, '--lanes', '2', '--json'], env);
    console.log(
      `[meal-planner-run] ${FEATURES} features in two lanes: ${Math.round((Date.now() - started) / 1000)} s`,
    );
    expect(out.code, out.stderr.slice(-3_000)).toBe(0);
    const run = RunStatusJson.parse(JSON.parse(out.stdout));
    const why = JSON.stringify({
      detail: run.detail,
      blocked: run.blocked,
      stderr: out.stderr.slice(-3_000),
    });
    expect(run, why).toMatchObject({
      status: 'done',
      features: { total: FEATURES, passing: FEATURES, blocked: 0 },
    });
    expect(run.blocked).toEqual([]);
    // npm in the boxes fetched the app's packages from the loopback registry.
    expect(registry.requests('/sql.js/-/sql.js-1.17.0.tgz')).toBeGreaterThan(0);
    expect(registry.requests('/dayjs/-/dayjs-1.11.23.tgz')).toBeGreaterThan(0);

    const replay = await runCliOnce(['checks', 'run', run.id, '--json'], env);
    expect(replay.code, replay.stderr.slice(-3_000)).toBe(0);
    const report = CheckRunReport.parse(JSON.parse(replay.stdout));
    expect(report.results.filter((row) => !row.ok)).toEqual([]);
    expect(new Set(report.results.map((row) => row.featureId)).size).toBe(FEATURES);
    const downloads = registry.requests('/sql.js/-/sql.js-1.17.0.tgz');
    console.log(`[meal-planner-run] sql.js downloaded ${downloads} time(s)`);
    expect(downloads).toBeLessThanOrEqual(MAX_SQL_JS_DOWNLOADS);
  }, 1_800_000);
});
