/**
 * The overnight bench's nightshift builds: an example's first N features from its spec, initializer included,
 * by real worker processes (one for 1 lane, two for more) against the simulated model, through the real orchestrator,
 * Redis, git and Chromium. Waits through rate-limit pauses (they resume by themselves) until the run ends.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readCheckFile } from '../checks/store.js';
import { replayOnOneApp } from '../evaluation/check-sweep.js';
import { openRepo } from '../handoff/git.js';
import { appStartSettings, sandboxForRole } from '../orchestrator/config.js';
import type { RunEvent } from '../orchestrator/events.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { ACTIVE_STATUSES, type RunRecord } from '../orchestrator/run/index.js';
import { startRun } from '../orchestrator/start-run.js';
import { withScriptedFeatureCount } from '../testkit/policies/todo-features.js';
import { startModelServer } from '../testkit/server.js';
import { simulatedModel } from '../testkit/simulated/index.js';
import { createBrowserPool } from '../workers/browser-pool.js';
import type { OvernightExample } from './overnight-examples.js';
import type { OvernightBuild } from './overnight-figures.js';
import { nightshiftFigures } from './overnight-phases.js';
import { allEvents, spawnWorker, type WorkerChild } from './scale.js';
import type { WorkerProcessConfig } from './scale-protocol.js';
import { BENCH_REDIS_URL, benchRunConfig, openBenchEnv } from './wiring.js';

/** What one nightshift build needs. */
export interface NightshiftBuildOptions {
  example: OvernightExample;
  /** The loopback registry the boxes' npm installs from (examples that install packages). */
  npmRegistry?: string | undefined;
  seed: number;
  compression: number;
  features: number;
  lanes: number;
  /** Longest wait for the run to end, ms. */
  timeoutMs: number;
}

/** Waits until the run ends; a rate-limited pause resumes by itself, so it is waited through. */
async function waitForEnd(orchestrator: Orchestrator, runId: string, timeoutMs: number): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await orchestrator.store.getRun(runId);
    const waiting = run.status === 'paused' && run.pausedReason === 'rate-limited';
    if (!ACTIVE_STATUSES.includes(run.status) && !waiting) return run;
    if (Date.now() > deadline) return run;
    await sleep(250);
  }
}

/** Replays the recorded check of every passing feature on one fresh app of the final code; counts the green. */
async function greenChecks(run: RunRecord, workspace: string, dataDir: string, passing: string[]) {
  const checks = await Promise.all(passing.map((id) => readCheckFile(workspace, id)));
  const recorded = checks.map((check) => check?.current).filter((check) => check !== undefined);
  if (recorded.length === 0) return 0;
  const pool = createBrowserPool();
  try {
    const input = {
      runId: run.id,
      session: 0,
      dataDir,
      sandbox: sandboxForRole(run.config.sandbox, 'evaluator'),
      ...appStartSettings(run.config.app),
    };
    const results = await replayOnOneApp(input, openRepo(workspace), pool, recorded, 'cli');
    return passing.filter((id) => results.get(id)?.ok === true).length;
  } finally {
    await pool.close();
  }
}

/**
 * The run config of a build: without a box (like the other sections), and for an example that installs packages
 * npm pointed at the loopback registry (`registries` is what makes the boxes' npm use it; nothing reaches out).
 */
function buildConfig(options: NightshiftBuildOptions) {
  const sandbox = options.npmRegistry
    ? { bubblewrap: 'off' as const, network: 'registries' as const, npmRegistry: options.npmRegistry }
    : undefined;
  return benchRunConfig({
    lanes: options.lanes,
    budgets: { maxSessions: 1_000, maxCostUsd: null },
    ...(sandbox ? { sandbox } : {}),
  });
}

/** Builds the example's first `features` features with nightshift at `lanes` lanes and measures it. */
export async function buildWithNightshift(options: NightshiftBuildOptions): Promise<OvernightBuild> {
  const env = openBenchEnv(`overnight${options.lanes}`);
  const model = simulatedModel({ seed: options.seed, latency: { compression: options.compression } });
  const server = await startModelServer({ policy: model.policy });
  const children: WorkerChild[] = [];
  try {
    const workspace = path.join(env.root, 'ws');
    const specPath = path.join(env.root, `${options.example.name}.md`);
    fs.writeFileSync(
      specPath,
      withScriptedFeatureCount(fs.readFileSync(options.example.specPath, 'utf8'), options.features),
    );
    const started = await startRun(env.orchestrator, {
      specPath,
      workspace: { kind: 'local', dir: workspace },
      config: buildConfig(options),
      dataDir: env.dataDir,
    });
    const workers = options.lanes > 1 ? 2 : 1;
    const config: WorkerProcessConfig = {
      redisUrl: BENCH_REDIS_URL,
      prefix: env.prefix,
      dataDir: env.dataDir,
      // A slot for every lane plus the merge queue, spread over the processes.
      concurrency: Math.max(1, Math.ceil((options.lanes + (options.lanes > 1 ? 1 : 0)) / workers)),
      anthropicBaseURL: server.anthropicBaseURL,
    };
    for (let index = 0; index < workers; index++) children.push(spawnWorker(config));
    await Promise.all(children.map((worker) => worker.ready));
    const run = await waitForEnd(env.orchestrator, started.id, options.timeoutMs);
    for (const worker of children) worker.child.send({ type: 'stop' });
    await Promise.all(children.map((worker) => worker.report.catch(() => undefined)));
    const { sessions } = await env.orchestrator.store.listSessions(run.id, { limit: 10_000 });
    const features = await env.orchestrator.store.listFeatures(run.id);
    const events: RunEvent[] = await allEvents(env.orchestrator, run.id);
    const passingIds = features.filter((feature) => feature.passes).map((feature) => feature.id);
    return nightshiftFigures({
      lanes: options.lanes,
      compression: options.compression,
      run,
      sessions,
      features,
      events,
      workspace,
      works: options.example.works,
      mistakes: model.mistakes().map((mistake) => mistake.kind),
      modelRequests: server.requests.length,
      checksGreen: await greenChecks(run, workspace, env.dataDir, passingIds),
    });
  } finally {
    for (const worker of children) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await server.close();
    await env.close();
  }
}
