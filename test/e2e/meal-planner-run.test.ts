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
// The run must end done with no feature blocked, and every recorded check must replay green at the end.
// Not yet proven green (first tries at load 40–60: 2 of 12 features in 30 min, evaluator clicks timing out at 5 s),
// so it runs only with NIGHTSHIFT_MEAL_PLANNER_RUN=1 until it has passed on an unloaded machine: then drop the gate.
const GATED = process.env.NIGHTSHIFT_MEAL_PLANNER_RUN !== '1';
const FEATURES = 12;
const info = await sandboxInfo();
const bubblewrap = requirement('bubblewrap', info.bubblewrap, info.reason ?? 'not found');
const packageCache = appRegistryRequirement();

let context: E2eContext;
let registry: AppRegistry;
beforeAll(async () => {
  if (GATED) return;
  bubblewrap.check();
  packageCache.check();
  context = createE2eContext('meal-planner-run');
  registry = await startOfflineAppRegistry();
});
afterAll(async () => {
  await registry?.stop();
  await context?.close();
});

describe.skipIf(GATED || bubblewrap.skip || packageCache.skip)('a meal-planner run in two lanes', () => {
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
    expect(run).toMatchObject({
      status: 'done',
      features: { total: FEATURES, passing: FEATURES, blocked: 0 },
    });
    expect(run.blocked).toEqual([]);
    // npm in the boxes fetched the app's packages from the loopback registry.
    expect(registry.log()).toMatch(/GET \/sql\.js\/-\/sql\.js-1\.17\.0\.tgz/);
    expect(registry.log()).toMatch(/GET \/dayjs\/-\/dayjs-1\.11\.23\.tgz/);

    const replay = await runCliOnce(['checks', 'run', run.id, '--json'], env);
    expect(replay.code, replay.stderr.slice(-3_000)).toBe(0);
    const report = CheckRunReport.parse(JSON.parse(replay.stdout));
    expect(report.results.filter((row) => !row.ok)).toEqual([]);
    expect(new Set(report.results.map((row) => row.featureId)).size).toBe(FEATURES);
  }, 1_800_000);
});
