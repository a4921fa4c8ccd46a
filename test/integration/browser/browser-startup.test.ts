import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../../agent/tool.js';
import { createBrowserTools } from '../../../agent/tools/browser.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { type RunningTodoApp, startTodoApp } from './todo-app.js';

// Prints (does not assert) how long an evaluation waits for its first snapshot, cold and warm.
const CHROMIUM = chromiumExecutable();
const ROUNDS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('evaluation start-up figures', () => {
  let app: RunningTodoApp;
  let evidenceRoot: string;

  beforeAll(async () => {
    app = await startTodoApp();
    evidenceRoot = await mkdtemp(path.join(tmpdir(), 'nightshift-browser-startup-'));
  });

  afterAll(async () => {
    await app?.stop();
    if (evidenceRoot) await rm(evidenceRoot, { recursive: true, force: true });
  });

  /** Acquire a context, open the app and take the first snapshot; returns ms and the snapshot text. */
  async function firstSnapshot(pool: BrowserPool, name: string): Promise<{ ms: number; snapshot: string }> {
    const started = performance.now();
    const evidenceDir = path.join(evidenceRoot, name);
    const evaluation = await pool.acquireContext({ evidenceDir, trace: true });
    evaluation.allowOrigin(app.origin);
    const tools = createBrowserTools({
      page: evaluation.page,
      evidenceDir,
      consoleMessages: () => evaluation.consoleMessages,
      allowedOrigins: [app.origin],
    });
    const navigate = tools.find((tool) => tool.name === 'browser_navigate')!;
    const context = { workspace: evidenceRoot, protectedPaths: [], signal: new AbortController().signal };
    const result = (await navigate.execute({ url: app.url }, context)) as ToolOutput | string;
    const ms = performance.now() - started;
    await evaluation.close();
    return { ms, snapshot: typeof result === 'string' ? result : result.content };
  }

  async function warmRounds(prewarm: boolean): Promise<number[]> {
    const pool = createBrowserPool({ executablePath: CHROMIUM, prewarm });
    const times: number[] = [];
    try {
      await firstSnapshot(pool, `warm-up-${prewarm}`);
      for (let round = 0; round < ROUNDS; round += 1) {
        // Evaluations do not start back to back in practice: give the spare time to open, as a model turn would.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const { ms, snapshot } = await firstSnapshot(pool, `warm-${prewarm}-${round}`);
        expect(snapshot).toMatch(/button "Add" \[ref=e\d+\]/);
        times.push(ms);
      }
      expect(pool.launches).toBe(1);
    } finally {
      await pool.close();
    }
    return times;
  }

  it('measures cold launch and warm fresh-context time to the first snapshot', async () => {
    const cold: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const pool = createBrowserPool({ executablePath: CHROMIUM });
      try {
        const { ms, snapshot } = await firstSnapshot(pool, `cold-${round}`);
        expect(snapshot).toMatch(/textbox "What needs to be done\?" \[ref=e\d+\]/);
        cold.push(ms);
      } finally {
        await pool.close();
      }
    }
    const warm = await warmRounds(true);
    const warmNoSpare = await warmRounds(false);
    const fmt = (values: number[]) =>
      `median ${median(values).toFixed(0)} ms (${values.map((v) => v.toFixed(0)).join(', ')})`;
    console.log(
      [
        `[browser start-up] load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
        `[browser start-up] cold launch -> first snapshot: ${fmt(cold)}`,
        `[browser start-up] warm browser, fresh (pre-warmed) context -> first snapshot: ${fmt(warm)}`,
        `[browser start-up] warm browser, fresh context, prewarm off -> first snapshot: ${fmt(warmNoSpare)}`,
      ].join('\n'),
    );
  }, 240_000);
});
