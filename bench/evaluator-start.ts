/**
 * Evaluator start-up: acquire a browser context from the worker's pool and take the first snapshot
 * (`browser_navigate`, which answers with the aria snapshot) of the todo fixture app. Cold = a new pool
 * (Chromium launch included); warm = the pool's browser already running, a fresh context per evaluation.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { ToolOutput } from '../agent/tool.js';
import { createBrowserTools } from '../agent/tools/browser.js';
import { startTodoApp } from '../test/integration/browser/todo-app.js';
import { type BrowserPool, createBrowserPool } from '../workers/browser-pool.js';
import { Spread, spread } from './stats.js';

/** Start-up figures in ms: total to the first snapshot, and its two parts. */
export const StartupFigures = z.object({
  totalMs: Spread,
  acquireMs: Spread,
  navigateAndSnapshotMs: Spread,
});
export type StartupFigures = z.infer<typeof StartupFigures>;

/** The evaluator start-up section of the report. */
export const EvaluatorStartResult = z.object({
  cold: StartupFigures,
  /**
   * Warm browser, as evaluations run: the pool's spare context, opened (and its trace started) after the previous
   * evaluation, with no base URL, so it fits whatever port the next app gets.
   */
  warmWithSpare: StartupFigures,
  /** Warm browser, the context opened on demand (a pool without a spare; diagnostic). */
  warmOnDemand: StartupFigures,
  /** As `warmWithSpare` but without the Playwright trace (DOM snapshots; screenshots too before 2026-12-03) every evaluation records. */
  warmWithSpareNoTrace: StartupFigures,
  /** Pause between warm rounds (stands in for the model turns between evaluations; lets the spare open). */
  gapMs: z.number(),
});
export type EvaluatorStartResult = z.infer<typeof EvaluatorStartResult>;

interface Timing {
  totalMs: number;
  acquireMs: number;
  navigateAndSnapshotMs: number;
}

async function firstSnapshot(
  pool: BrowserPool,
  appUrl: string,
  evidenceDir: string,
  trace = true,
): Promise<Timing> {
  const started = performance.now();
  // No base URL, as roles/evaluator.ts acquires: the spare then fits every evaluation's app port.
  const evaluation = await pool.acquireContext({ evidenceDir, trace });
  evaluation.allowOrigin(appUrl);
  const acquired = performance.now();
  const tools = createBrowserTools({
    page: evaluation.page,
    evidenceDir,
    consoleMessages: () => evaluation.consoleMessages,
    allowedOrigins: [appUrl],
  });
  const navigate = tools.find((tool) => tool.name === 'browser_navigate');
  if (!navigate) throw new Error('browser_navigate is missing from the browser tools');
  const context = { workspace: evidenceDir, protectedPaths: [], signal: new AbortController().signal };
  const result = (await navigate.execute({ url: appUrl }, context)) as ToolOutput | string;
  const done = performance.now();
  await evaluation.close();
  const text = typeof result === 'string' ? result : result.content;
  if (!/\[ref=e\d+\]/.test(text))
    throw new Error(`the first snapshot has no element refs:\n${text.slice(0, 500)}`);
  return { totalMs: done - started, acquireMs: acquired - started, navigateAndSnapshotMs: done - acquired };
}

function figures(timings: readonly Timing[]): StartupFigures {
  return {
    totalMs: spread(timings.map((t) => t.totalMs)),
    acquireMs: spread(timings.map((t) => t.acquireMs)),
    navigateAndSnapshotMs: spread(timings.map((t) => t.navigateAndSnapshotMs)),
  };
}

async function warmRounds(options: {
  prewarm: boolean;
  trace: boolean;
  rounds: number;
  gapMs: number;
  appUrl: string;
  evidenceRoot: string;
}): Promise<Timing[]> {
  const pool = createBrowserPool({ prewarm: options.prewarm });
  const timings: Timing[] = [];
  try {
    const label = `${options.prewarm}-${options.trace}`;
    await firstSnapshot(
      pool,
      options.appUrl,
      path.join(options.evidenceRoot, `warm-up-${label}`),
      options.trace,
    );
    for (let round = 0; round < options.rounds; round++) {
      await new Promise((resolve) => setTimeout(resolve, options.gapMs));
      const dir = path.join(options.evidenceRoot, `warm-${label}-${round}`);
      timings.push(await firstSnapshot(pool, options.appUrl, dir, options.trace));
    }
    if (pool.launches !== 1) throw new Error(`the warm pool launched Chromium ${pool.launches} times`);
  } finally {
    await pool.close();
  }
  return timings;
}

/** Measures cold and warm start-up against the todo fixture app. */
export async function measureEvaluatorStart(options: {
  coldRounds: number;
  warmRounds: number;
  gapMs?: number;
}): Promise<EvaluatorStartResult> {
  const gapMs = options.gapMs ?? 500;
  const app = await startTodoApp();
  const evidenceRoot = await mkdtemp(path.join(os.tmpdir(), 'nsbench-evaluator-'));
  try {
    const cold: Timing[] = [];
    for (let round = 0; round < options.coldRounds; round++) {
      const pool = createBrowserPool();
      try {
        cold.push(await firstSnapshot(pool, app.url, path.join(evidenceRoot, `cold-${round}`)));
      } finally {
        await pool.close();
      }
    }
    const common = { rounds: options.warmRounds, gapMs, appUrl: app.url, evidenceRoot };
    const withSpare = await warmRounds({ ...common, prewarm: true, trace: true });
    const onDemand = await warmRounds({ ...common, prewarm: false, trace: true });
    const noTrace = await warmRounds({ ...common, prewarm: true, trace: false });
    return {
      cold: figures(cold),
      warmWithSpare: figures(withSpare),
      warmOnDemand: figures(onDemand),
      warmWithSpareNoTrace: figures(noTrace),
      gapMs,
    };
  } finally {
    await app.stop();
    await rm(evidenceRoot, { recursive: true, force: true });
  }
}
