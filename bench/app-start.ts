/**
 * App start with and without the box: `startApp` on the demo's todo app (examples/todo/scripted/skeleton,
 * `init.sh` → `node server.js`) until it answers HTTP, in the box (bubblewrap, network `registries`: relay,
 * egress proxy, ingress bridge) and without it (`sandbox: none`, a plain child). Variants alternate round by
 * round so machine load falls on both alike.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { type StartAppOptions, startApp } from '../handoff/app-runner.js';
import { AppDepsResult } from './app-deps.js';
import { Spread, spread } from './stats.js';

const SKELETON = fileURLToPath(new URL('../examples/todo/scripted/skeleton', import.meta.url));

/** The app start section of the report (ms from `startApp` to the first HTTP answer; stop separately). */
export const AppStartResult = z.object({
  box: z.object({ startMs: Spread, stopMs: Spread }),
  boxNoNetwork: z.object({ startMs: Spread, stopMs: Spread }),
  noBox: z.object({ startMs: Spread, stopMs: Spread }),
  /**
   * `node -e 0` on this machine at the same time: the box starts its relay (a node process) before init.sh,
   * so the added time tracks one node start.
   */
  nodeStartMs: Spread,
  /** Median start in the box (registries) minus median start without it. */
  addedAtMedianMs: z.number().nullable(),
  addedAtP90Ms: z.number().nullable(),
  /** The meal planner's copy + install + start with the run's dependency cache and without (absent before it). */
  dependencyCache: AppDepsResult.optional(),
});
export type AppStartResult = z.infer<typeof AppStartResult>;

type Variant = 'box' | 'boxNoNetwork' | 'noBox';
const OPTIONS: Record<Variant, Partial<StartAppOptions>> = {
  box: { sandbox: 'bubblewrap', network: 'registries' },
  boxNoNetwork: { sandbox: 'bubblewrap', network: 'none' },
  noBox: { sandbox: 'none' },
};

async function once(workspace: string, variant: Variant): Promise<{ startMs: number; stopMs: number }> {
  const started = performance.now();
  const result = await startApp({
    workspace,
    logFile: path.join(path.dirname(workspace), `${variant}.log`),
    readyTimeoutMs: 60_000,
    ...OPTIONS[variant],
  });
  const ready = performance.now();
  if (!result.ok) throw new Error(`the demo app did not start (${variant}): ${result.reason}`);
  await result.app.stop();
  return { startMs: ready - started, stopMs: performance.now() - ready };
}

/** Starts and stops the demo app `starts` times per variant. */
export async function measureAppStart(options: { starts: number }): Promise<AppStartResult> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'ns-bench-app-'));
  const workspace = path.join(root, 'ws');
  cpSync(SKELETON, workspace, { recursive: true });
  const samples: Record<Variant, { startMs: number[]; stopMs: number[] }> = {
    box: { startMs: [], stopMs: [] },
    boxNoNetwork: { startMs: [], stopMs: [] },
    noBox: { startMs: [], stopMs: [] },
  };
  const nodeStarts: number[] = [];
  try {
    // One discarded warm-up per variant (page cache, the bubblewrap probe).
    for (const variant of Object.keys(OPTIONS) as Variant[]) await once(workspace, variant);
    for (let round = 0; round < options.starts; round++) {
      const variants = Object.keys(OPTIONS) as Variant[];
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) {
        const { startMs, stopMs } = await once(workspace, variant);
        samples[variant].startMs.push(startMs);
        samples[variant].stopMs.push(stopMs);
      }
      const before = performance.now();
      execFileSync(process.execPath, ['-e', '0']);
      nodeStarts.push(performance.now() - before);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const figures = (variant: Variant) => ({
    startMs: spread(samples[variant].startMs),
    stopMs: spread(samples[variant].stopMs),
  });
  const [box, boxNoNetwork, noBox] = [figures('box'), figures('boxNoNetwork'), figures('noBox')];
  const minus = (a: number | null, b: number | null) =>
    a === null || b === null ? null : Number((a - b).toFixed(1));
  return {
    box,
    boxNoNetwork,
    noBox,
    nodeStartMs: spread(nodeStarts),
    addedAtMedianMs: minus(box.startMs.median, noBox.startMs.median),
    addedAtP90Ms: minus(box.startMs.p90, noBox.startMs.p90),
  };
}
