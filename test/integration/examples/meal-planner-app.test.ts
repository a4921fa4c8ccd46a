// The meal-planner example's content, proved with real parts: the whole app assembled from the scripted sources,
// its npm dependencies installed inside the box (policy `registries`) from verdaccio on the loopback, offline, then
// every feature's data-driven browser check run through the check interpreter in real Chromium, in list order, on
// one app. Every feature's shell verify (the generator's check) passes in the box too. Then the app with one earlier
// feature regressed: that feature's check is red, an unrelated one green.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../../agent/tool.js';
import { createBrowserTools } from '../../../agent/tools/browser.js';
import { ALWAYS_HIDDEN, sandboxInfo } from '../../../box/bubblewrap.js';
import { resolveSandbox } from '../../../box/mode.js';
import { runSandboxed } from '../../../box/run.js';
import { type RunningApp, startApp } from '../../../handoff/app-runner.js';
import type { AppRegistry } from '../../../testkit/app-registry.js';
import type { SubmittedVerdictArgs } from '../../../testkit/policies/evaluator.js';
import {
  type AssembleMealPlannerOptions,
  assembleMealPlannerApp,
} from '../../../testkit/policies/meal-planner/assemble.js';
import { runMealPlannerCheck } from '../../../testkit/policies/meal-planner/check-runner.js';
import {
  MEAL_PLANNER_FEATURES,
  mealPlannerFeature,
  mealPlannerFeatureId,
} from '../../../testkit/policies/meal-planner/features.js';
import { mealPlannerVerifyCommand } from '../../../testkit/policies/meal-planner/verify.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { appRegistryRequirement, startOfflineAppRegistry } from '../../app-registry.js';
import { requirement } from '../../requirements.js';
import { runScriptDirectly } from './direct-script.js';

const CHROMIUM = chromiumExecutable();
const info = await sandboxInfo();
const bubblewrap = requirement('bubblewrap', info.bubblewrap, info.reason ?? 'not found');
const packageCache = appRegistryRequirement();
/**
 * npm ci of sql.js (a 14 MB tarball) through the box's proxy, then the first start, on a loaded 2-core machine. The
 * test timeouts are sized for such a machine too: at load 25 the 50 checks took over 15 minutes (about 18 s each).
 */
const READY_TIMEOUT_MS = 180_000;
/**
 * Every feature's check and verify take ten minutes of one test worker; `npm test` runs a quarter of them (every
 * fourth feature, from an offset that moves each day, so a week covers them all) and NIGHTSHIFT_FULL_EXAMPLES=1 all
 * of them. NIGHTSHIFT_EXAMPLE_OFFSET=0..3 repeats a day's sample. The app is always assembled and installed whole.
 */
const SAMPLE_EVERY = process.env.NIGHTSHIFT_FULL_EXAMPLES === '1' ? 1 : 4;
const SAMPLE_OFFSET =
  Number(process.env.NIGHTSHIFT_EXAMPLE_OFFSET ?? Math.floor(Date.now() / 86_400_000)) % SAMPLE_EVERY;
const SAMPLED = MEAL_PLANNER_FEATURES.filter((_, index) => index % SAMPLE_EVERY === SAMPLE_OFFSET);

describe.skipIf(bubblewrap.skip || packageCache.skip)('the meal-planner example app', () => {
  let root: string;
  let registry: AppRegistry;
  let pool: BrowserPool;
  const apps: RunningApp[] = [];
  let evaluations = 0;

  beforeAll(async () => {
    bubblewrap.check();
    packageCache.check();
    root = await mkdtemp(path.join(os.tmpdir(), 'ns-meal-planner-'));
    registry = await startOfflineAppRegistry();
    pool = createBrowserPool({ executablePath: CHROMIUM });
  });

  afterAll(async () => {
    for (const app of apps) await app.stop();
    await pool?.close();
    await registry?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /**
   * Assembles the app and starts it in the box. The harness passes no registry to the box today (npm_* variables
   * are scrubbed), so the workspace names it in a project .npmrc, as a user would; the box reaches the host's
   * loopback registry as host.nightshift.internal because 127.0.0.1:<port> is on its allow list.
   */
  async function startAssembled(name: string, options: AssembleMealPlannerOptions): Promise<RunningApp> {
    const dir = path.join(root, name);
    await assembleMealPlannerApp(dir, options);
    await writeFile(path.join(dir, '.npmrc'), `registry=http://host.nightshift.internal:${registry.port}/\n`);
    const started = await startApp({
      workspace: dir,
      logFile: path.join(root, `${name}.log`),
      network: 'registries',
      allowHosts: [`127.0.0.1:${registry.port}`],
      readyTimeoutMs: READY_TIMEOUT_MS,
    });
    if (!started.ok) throw new Error(`the ${name} app did not start: ${started.reason}`);
    apps.push(started.app);
    return started.app;
  }

  /** One feature's check in a fresh browser context, as an evaluation would run it. */
  async function check(app: RunningApp, key: string): Promise<SubmittedVerdictArgs> {
    const index = MEAL_PLANNER_FEATURES.findIndex((feature) => feature.key === key);
    evaluations += 1;
    const evidenceDir = path.join(root, 'evidence', String(evaluations));
    const evaluation = await pool.acquireContext({ evidenceDir, trace: false });
    const origin = new URL(app.url).origin;
    evaluation.allowOrigin(origin);
    try {
      const tools = createBrowserTools({
        page: evaluation.page,
        evidenceDir,
        consoleMessages: () => evaluation.consoleMessages,
        allowedOrigins: [origin],
      });
      const context: ToolContext = {
        workspace: root,
        protectedPaths: [],
        signal: new AbortController().signal,
      };
      const tag = `t${evaluations.toString(36)}${Date.now().toString(36).slice(-4)}`;
      return await runScriptDirectly(tools, context, tag, (io) =>
        runMealPlannerCheck(io, app.url, mealPlannerFeatureId(index), mealPlannerFeature(key), tag),
      );
    } finally {
      await evaluation.close();
    }
  }

  it('installs offline from the loopback registry in the box, and every feature check is green on the full app', async () => {
    console.log(
      `[meal-planner] checking ${SAMPLED.length} of ${MEAL_PLANNER_FEATURES.length} features (every ${SAMPLE_EVERY}, offset ${SAMPLE_OFFSET}); NIGHTSHIFT_FULL_EXAMPLES=1 checks all`,
    );
    const app = await startAssembled('full', {});
    expect(registry.log()).toMatch(/GET \/sql\.js\/-\/sql\.js-1\.17\.0\.tgz/);
    expect(registry.log()).toMatch(/GET \/dayjs\/-\/dayjs-1\.11\.23\.tgz/);
    const red: string[] = [];
    for (const feature of SAMPLED) {
      const verdict = await check(app, feature.key);
      if (verdict.verdict !== 'pass')
        red.push(`${verdict.feature_id} ${feature.key}: ${verdict.verdict} — ${verdict.issues[0]}`);
      else expect(verdict.steps.every((step) => step.ok && step.evidence.length > 0)).toBe(true);
    }
    expect(red).toEqual([]);
  }, 2_400_000);

  it("passes every feature's shell verify in the box, as a generator's bash runs it", async () => {
    const dir = path.join(root, 'full');
    const scripts = path.join(dir, '.verify');
    await mkdir(scripts, { recursive: true });
    for (const feature of SAMPLED) {
      const index = MEAL_PLANNER_FEATURES.indexOf(feature);
      const script = mealPlannerVerifyCommand(feature.verify, `${feature.key} checks passed`);
      await writeFile(path.join(scripts, `${String(index + 1).padStart(2, '0')}-${feature.key}.sh`), script);
    }
    // One box for all: each verify starts the app from init.sh on a port of its own, checks it and stops it.
    const loop =
      'for f in .verify/*.sh; do if bash "$f" >"$f.out" 2>&1; then echo "PASS $f"; else echo "FAIL $f"; tail -n 15 "$f.out"; fi; done';
    const sandbox = await resolveSandbox('auto');
    if (sandbox.mode !== 'bubblewrap') throw new Error('bubblewrap is required');
    const run = await runSandboxed({
      command: loop,
      workspace: dir,
      ...sandbox,
      network: { mode: 'registries', allowHosts: [`127.0.0.1:${registry.port}`] },
      timeoutMs: 1_500_000,
      outputLimitBytes: 256 * 1024,
      hiddenPaths: [...ALWAYS_HIDDEN, os.homedir()],
      readOnlyPaths: [],
      maxProcesses: 512,
      maxFileSizeBytes: 1024 ** 3,
      maxMemoryBytes: 2 * 1024 ** 3,
    });
    const output = run.stdout.text;
    expect(run.exitCode, output).toBe(0);
    expect(output.match(/^PASS /gm)?.length, output).toBe(SAMPLED.length);
    expect(output).not.toMatch(/^FAIL /m);
  }, 1_800_000);

  it('turns the check of a regressed earlier feature red, and leaves an unrelated one green', async () => {
    const app = await startAssembled('regressed', { bug: 'log-in' });
    const regressed = await check(app, 'log-in');
    expect(regressed.verdict).toBe('fail');
    expect(regressed.issues[0]).toMatch(/Expected the page to show "Email or password is wrong\."/);
    expect((await check(app, 'my-recipes')).verdict).toBe('pass');
  }, 300_000);
});
