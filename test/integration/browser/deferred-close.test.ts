// Off the handoff's critical path: an evaluation's trace is saved after its result is recorded (the worker's
// deferred work), and the pool's spare context starts its trace ahead of the next evaluation. Real Chromium.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { closingInBackground, createDeferredWork } from '../../../workers/deferred-close.js';
import { type RunningTodoApp, startTodoApp } from './todo-app.js';

async function isZip(file: string): Promise<boolean> {
  const bytes = await readFile(file);
  return bytes.length > 1000 && bytes.subarray(0, 2).toString('latin1') === 'PK';
}

describe('evaluation close off the critical path', () => {
  let app: RunningTodoApp;
  let evidenceRoot: string;
  let pool: BrowserPool;

  beforeAll(async () => {
    app = await startTodoApp();
    evidenceRoot = await mkdtemp(path.join(tmpdir(), 'nightshift-deferred-'));
    pool = createBrowserPool();
  });

  afterAll(async () => {
    await pool?.close();
    await app?.stop();
    if (evidenceRoot) await rm(evidenceRoot, { recursive: true, force: true });
  });

  it('answers close() with the evidence at once and saves the trace in the deferred work', async () => {
    const deferred = createDeferredWork();
    const browser = closingInBackground(pool, deferred);
    const evidenceDir = path.join(evidenceRoot, 'one');
    const evaluation = await browser.acquireContext({ evidenceDir, trace: true });
    evaluation.allowOrigin(app.origin);
    await evaluation.page.goto(app.url);
    await evaluation.page.screenshot({ path: path.join(evidenceDir, '01-start.png') });
    const evidence = await evaluation.close();
    expect(evidence).toEqual({
      tracePath: path.join(evidenceDir, 'trace.zip'),
      screenshots: [path.join(evidenceDir, '01-start.png')],
    });
    expect(deferred.pending).toBe(1);
    expect(await evaluation.close()).toBe(evidence); // idempotent: one close
    await deferred.drain();
    expect(deferred.pending).toBe(0);
    expect(await isZip(evidence.tracePath!)).toBe(true);
  });

  it("traces the next evaluation on the spare (its trace started ahead), and drops it for one that doesn't trace", async () => {
    await new Promise((resolve) => setTimeout(resolve, 500)); // the spare opens after the last close
    const tracedDir = path.join(evidenceRoot, 'traced');
    const traced = await pool.acquireContext({ evidenceDir: tracedDir, trace: true });
    traced.allowOrigin(app.origin);
    // Handed out tracing (started when the spare opened): a second start is refused by Playwright.
    await expect(traced.context.tracing.start()).rejects.toThrow(/already started/i);
    expect(traced.context.browser()!.contexts()).toEqual([traced.context]);
    await traced.page.goto(app.url);
    const tracedEvidence = await traced.close();
    expect(await isZip(tracedEvidence.tracePath!)).toBe(true);

    await new Promise((resolve) => setTimeout(resolve, 500));
    const plainDir = path.join(evidenceRoot, 'plain');
    const plain = await pool.acquireContext({ evidenceDir: plainDir, trace: false });
    plain.allowOrigin(app.origin);
    await plain.page.goto(app.url);
    expect(await plain.close()).toEqual({ screenshots: [] });
    expect(existsSync(path.join(plainDir, 'trace.zip'))).toBe(false);
  });
});
