/**
 * Recorded checks against an LLM regression evaluation of the same features (issue 15): on the finished demo
 * app (examples/todo), one scripted LLM evaluator session checks all its features (recording a check per pass),
 * then the recorded checks are replayed `replays` times on one freshly started app with a warm browser
 * (`replayOnOneApp`, what sweeps and `nightshift checks run` use: one context and page, cleared between checks),
 * then a replay-first regression session runs.
 * Model requests are counted on the scripted server: the replays must make none.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createAnthropicProvider } from '../agent/providers/index.js';
import type { RecordedCheck } from '../checks/format.js';
import type { ReplayResult, ReplaySplit } from '../checks/replay.js';
import { readCheckFile } from '../checks/store.js';
import { replayOnOneApp } from '../evaluation/check-sweep.js';
import { replayContexts } from '../evaluation/sweep-replays.js';
import { checkpoint, ensureRepo, openRepo } from '../handoff/git.js';
import { runRoleSession } from '../roles/session.js';
import type { RoleSessionInput } from '../roles/types.js';
import demoPolicy from '../testkit/policies/demo.js';
import { assembleTodoApp } from '../testkit/policies/todo-assemble.js';
import { startModelServer } from '../testkit/server.js';
import type { ModelServer } from '../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../workers/browser-pool.js';
import { Spread, spread } from './stats.js';

/** Price the scripted model is charged at (a Sonnet-class model), per million tokens. */
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };

/** One evaluator session of the demo's features: wall time, model requests, cost. */
const SessionFigures = z.object({
  features: z.number().int(),
  passes: z.number().int(),
  wallMs: z.number(),
  modelRequests: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number().nullable(),
});

/** The recorded-checks section of the report. */
export const ChecksResult = z.object({
  /** Features of the demo app and how many have a recorded check after the LLM evaluation. */
  features: z.number().int(),
  checks: z.number().int(),
  /** One LLM regression evaluation of all the features (no checks yet; each pass replayed once by the pass gate). */
  llmEvaluation: SessionFigures,
  replays: z.object({
    n: z.number().int(),
    green: z.number().int(),
    /** Red on the shared app, replayed again on an app of their own (the result kept is the second one). */
    retriedOnOwnApp: z.number().int(),
    /** Green on the sweep's shared app (absent in results recorded before it was counted). */
    greenOnSharedApp: z.number().int().optional(),
    /** Per replay (the cleared page of the sweep's context, actions, expectations), as the replay times it. */
    perReplayMs: Spread,
    /** Median per part of the replays on the shared app (absent in results recorded before the split). */
    split: z
      .object({
        pageMs: z.number(),
        navigationMs: z.number(),
        actionsMs: z.number(),
        settleMs: z.number(),
        expectationsMs: z.number(),
      })
      .optional(),
    p95Ms: z.number().nullable(),
    /** The whole `replayOnOneApp` call (app start, contexts, replays, results kept) divided by `n`. */
    wallPerReplayMs: z.number(),
    overheadMs: z.number(),
    modelRequests: z.number().int(),
    /**
     * The same replays in as many contexts at once as the machine is sized for (`replayContexts`): the wall time
     * of a sweep where there are cores (absent in results recorded before replays ran side by side).
     */
    sideBySide: z
      .object({
        contexts: z.number().int(),
        green: z.number().int(),
        perReplayMs: Spread,
        wallPerReplayMs: z.number(),
      })
      .optional(),
  }),
  /** A regression session once every feature has a check: replay first, the model only for red ones. */
  replayFirstSweep: SessionFigures,
});
export type ChecksResult = z.infer<typeof ChecksResult>;

/** The finished demo app as a committed workspace whose features have ids (`change` alters the app first). */
export async function demoWorkspace(
  workspace: string,
  change?: (dir: string) => Promise<void>,
): Promise<{ workspace: string; ids: string[] }> {
  await assembleTodoApp(workspace);
  await change?.(workspace);
  const listPath = path.join(workspace, 'feature_list.json');
  const features = JSON.parse(await readFile(listPath, 'utf8')) as Array<Record<string, unknown>>;
  const ids = features.map((_, index) => `F-${String(index + 1).padStart(3, '0')}`);
  const withIds = features.map((feature, index) => ({ id: ids[index], ...feature }));
  await writeFile(listPath, `${JSON.stringify(withIds, null, 2)}\n`);
  await writeFile(path.join(workspace, '.gitignore'), 'data/\n');
  const repo = await ensureRepo(workspace);
  await checkpoint(repo, { role: 'harness', runId: 'bench', session: 0, summary: 'demo app' });
  return { workspace, ids };
}

async function evaluatorSession(
  server: ModelServer,
  input: Pick<RoleSessionInput, 'workspace' | 'dataDir' | 'featureIds' | 'session' | 'browser'> & {
    mode: 'evaluate' | 'regression';
  },
): Promise<z.infer<typeof SessionFigures>> {
  const provider = createAnthropicProvider({
    model: 'scripted',
    apiKey: 'sk-ant-bench-000000',
    baseURL: server.anthropicBaseURL,
    maxRetries: 0,
  });
  const before = server.requests.length;
  const started = performance.now();
  const result = await runRoleSession({
    role: 'evaluator',
    runId: 'bench',
    provider,
    prices: { [provider.id]: PRICE },
    limits: { maxSteps: 200, maxMinutes: 10 },
    sandbox: { sandbox: 'none' },
    ...input,
  });
  return {
    features: input.featureIds.length,
    passes: result.verdicts.filter((verdict) => verdict.verdict === 'pass').length,
    wallMs: Math.round(performance.now() - started),
    modelRequests: server.requests.length - before,
    // The scripted server reports most input as cache reads and writes, as a cached prompt would be.
    inputTokens: result.usage.inputTokens + result.usage.cacheReadTokens + result.usage.cacheWriteTokens,
    outputTokens: result.usage.outputTokens,
    costUsd: result.costUsd === null ? null : Number(result.costUsd.toFixed(4)),
  };
}

/**
 * `count` checks cycling through `checks`, each copy under a feature id of its own (results are kept per feature,
 * and a kept result's id must be a feature id): `F-<index + 1>01<original number>`.
 */
function copies(checks: readonly RecordedCheck[], count: number): RecordedCheck[] {
  return Array.from({ length: count }, (_, index) => {
    const check = checks[index % checks.length] as RecordedCheck;
    return { ...check, featureId: `F-${index + 1}01${check.featureId.slice(2)}` };
  });
}

/** Median per part of the replays' split. */
function medianSplit(results: readonly ReplayResult[]): NonNullable<ChecksResult['replays']['split']> {
  const part = (key: keyof ReplaySplit) =>
    spread(results.flatMap((result) => (result.split ? [result.split[key]] : []))).median ?? 0;
  return {
    pageMs: part('pageMs'),
    navigationMs: part('navigationMs'),
    actionsMs: part('actionsMs'),
    settleMs: part('settleMs'),
    expectationsMs: part('expectationsMs'),
  };
}

/** The demo's checks as its run records them: one evaluate session per feature (a check per pass). */
export async function recordChecks(
  server: ModelServer,
  browser: BrowserPool,
  root: string,
): Promise<{ workspace: string; dataDir: string; ids: string[]; checks: RecordedCheck[] }> {
  const { workspace, ids } = await demoWorkspace(path.join(root, 'recorded'));
  const dataDir = path.join(root, 'recorded-data');
  const checks: RecordedCheck[] = [];
  for (const [index, id] of ids.entries()) {
    await evaluatorSession(server, {
      workspace,
      dataDir,
      featureIds: [id],
      session: index + 1,
      browser,
      mode: 'evaluate',
    });
    const file = await readCheckFile(workspace, id);
    if (file) checks.push(file.current);
  }
  if (checks.length === 0) throw new Error('the evaluate sessions recorded no check');
  return { workspace, dataDir, ids, checks };
}

/** What replaying the recorded checks needs. */
interface Recorded {
  workspace: string;
  dataDir: string;
  checks: RecordedCheck[];
}

/** One `replayOnOneApp` call of `count` copies of the checks in `contexts` contexts: its results and wall time. */
async function sweepOnce(browser: BrowserPool, recorded: Recorded, count: number, contexts: number) {
  const list = copies(recorded.checks, count);
  const started = performance.now();
  const input = {
    runId: 'bench',
    session: 100 + contexts,
    dataDir: recorded.dataDir,
    sandbox: { sandbox: 'none' as const },
    replayContexts: contexts,
  };
  const results = await replayOnOneApp(input, openRepo(recorded.workspace), browser, list, 'cli');
  return { list, results, wallMs: performance.now() - started };
}

/** The replays in one context (the per-replay figures), then side by side in the machine's contexts. */
async function replayMany(
  server: ModelServer,
  browser: BrowserPool,
  recorded: Recorded,
  count: number,
): Promise<ChecksResult['replays']> {
  const before = server.requests.length;
  const { list, results, wallMs } = await sweepOnce(browser, recorded, count, 1);
  const contexts = replayContexts();
  const wide = await sweepOnce(browser, recorded, count, contexts);
  const all = [...results.values()];
  const shared = all.filter((result) => !result.ownApp);
  const durations = all.map((result) => result.durationMs);
  const sorted = [...durations].sort((a, b) => a - b);
  const p95 = sorted.length ? (sorted[Math.ceil(sorted.length * 0.95) - 1] as number) : null;
  return {
    n: results.size,
    green: all.filter((result) => result.ok).length,
    retriedOnOwnApp: all.length - shared.length,
    greenOnSharedApp: shared.filter((result) => result.ok).length,
    perReplayMs: spread(durations),
    split: medianSplit(shared),
    p95Ms: p95 === null ? null : Number(p95.toFixed(1)),
    wallPerReplayMs: Number((wallMs / list.length).toFixed(1)),
    // What the call spent outside the replays: app start and stop, the context, results kept.
    overheadMs: Math.round(wallMs - durations.reduce((sum, value) => sum + value, 0)),
    modelRequests: server.requests.length - before,
    sideBySide: {
      contexts,
      green: [...wide.results.values()].filter((result) => result.ok).length,
      perReplayMs: spread([...wide.results.values()].map((result) => result.durationMs)),
      wallPerReplayMs: Number((wide.wallMs / wide.list.length).toFixed(1)),
    },
  };
}

/**
 * Measures an LLM regression evaluation of the demo's features (a workspace without checks), records the checks
 * as the demo does, replays them `replays` times on one app, then runs a replay-first regression session.
 */
export async function measureChecks(options: { replays: number }): Promise<ChecksResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'ns-bench-checks-'));
  const server = await startModelServer({ policy: demoPolicy });
  const browser = createBrowserPool();
  try {
    const plain = await demoWorkspace(path.join(root, 'llm'));
    const llmEvaluation = await evaluatorSession(server, {
      workspace: plain.workspace,
      dataDir: path.join(root, 'llm-data'),
      featureIds: plain.ids,
      session: 1,
      browser,
      mode: 'regression',
    });
    const recorded = await recordChecks(server, browser, root);
    const replays = await replayMany(server, browser, recorded, options.replays);
    const replayFirstSweep = await evaluatorSession(server, {
      workspace: recorded.workspace,
      dataDir: recorded.dataDir,
      featureIds: recorded.ids,
      session: 200,
      browser,
      mode: 'regression',
    });
    return {
      features: recorded.ids.length,
      checks: recorded.checks.length,
      llmEvaluation,
      replays,
      replayFirstSweep,
    };
  } finally {
    await browser.close();
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}
