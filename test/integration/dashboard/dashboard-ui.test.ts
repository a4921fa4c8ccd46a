import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardServer, type DashboardServer } from '../../../dashboard/server.js';
import { connectedWorkers } from '../../../orchestrator/queues.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import { launchChromium, watchedPages } from './browser.js';
import { openStore, SteppingClock, seedRun, writeTranscript } from './seed.js';

const XSS = '<script>window.__pwned = "script"</script><img src=x onerror="window.__pwned = \'img\'">';

describe('dashboard UI in Chromium', () => {
  let env: Awaited<ReturnType<typeof openStore>>;
  let dataDir: string;
  let server: DashboardServer;
  let browser: Browser;
  let page: Page;
  let building: RunRecord;
  let paused: RunRecord;
  const pages = watchedPages(() => browser);
  const csp = pages.csp;

  beforeAll(async () => {
    const clock = new SteppingClock(Date.parse('2026-11-28T22:00:00Z'));
    env = await openStore(clock);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-dash-ui-'));
    // F-002 always fails (so it ends blocked); every fourth feature fails once before passing.
    const verdictFor = (i: number, attempt: number) =>
      i === 1 || (i % 4 === 3 && attempt === 0) ? 'fail' : 'pass';
    building = await seedRun(env.store, {
      features: 30,
      sessions: 40,
      workspace: path.join(dataDir, 'ws1'),
      clock,
      verdictFor,
    });
    paused = await seedRun(env.store, {
      features: 9,
      sessions: 8,
      workspace: path.join(dataDir, 'ws2'),
      clock,
      status: 'paused',
    });
    await writeTranscript(dataDir, building.id, 3, XSS);
    server = await createDashboardServer({ store: env.store, dataDir, port: 0 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await env?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  const open = async (url: string) => {
    page = await pages.open(url);
    return page;
  };

  afterEach(async () => {
    await pages.closeLast();
    expect(csp, 'CSP violations').toEqual([]);
  });

  it('lists every run with its spec, workspace, short id, status, progress, blocked count and start', async () => {
    await open(`${server.url}/`);
    for (const run of [building, paused]) {
      const row = page.locator(`tr[data-run="${run.id}"]`);
      await row.waitFor();
      expect(await row.locator('.run-link').textContent()).toBe('todo-app');
      expect(await row.locator('[data-field="run-where"]').textContent()).toBe(
        `${path.basename(run.workspace.kind === 'local' ? run.workspace.path : '')} · ${run.id.slice(-6)}`,
      );
      expect(await row.locator('[data-field="started"]').getAttribute('title')).toBe(run.startedAt);
      expect(await row.locator('[data-field="progress"]').textContent()).toBe(
        `${run.features.passing} / ${run.features.total}`,
      );
      expect(await row.locator('[data-field="blocked"]').textContent()).toBe(String(run.features.blocked));
    }
    expect(building.features.blocked).toBeGreaterThan(0);
    expect(await page.locator(`tr[data-run="${paused.id}"] .badge`).textContent()).toBe('paused · budget');
    expect(await page.locator('tr[data-run]').count()).toBe(2);
  });

  it('renders the chart, the grid and the timeline of a run', async () => {
    await open(`${server.url}/runs/${building.id}`);
    await page.waitForSelector('#timeline tbody tr');
    expect(await page.locator('#feature-grid [data-feature]').count()).toBe(30);
    expect(await page.locator('#feature-grid [data-state="pass"]').count()).toBe(building.features.passing);
    const points = Number(await page.locator('#progress-chart path.chart-line').getAttribute('data-points'));
    expect(points).toBeGreaterThan(5);
    expect(await page.locator('#timeline tbody tr').count()).toBe(building.counters.sessions);
    expect(await page.locator('#timeline tbody tr').first().getAttribute('data-seq')).toBe(
      String(building.counters.sessions),
    );
  });

  it('shows a feature flipping to pass without a reload', async () => {
    await open(`${server.url}/runs/${building.id}`);
    const features = await env.store.listFeatures(building.id);
    const target = features.find((f) => !f.passes && !f.blocked)!;
    await page.waitForSelector(`[data-feature="${target.id}"]:not([data-state="pass"])`);
    await page.waitForSelector('#live.connected');
    await page.evaluate(() => {
      (window as unknown as { __marker: number }).__marker = 1;
    });
    await env.store.updateFeature(building.id, target.id, { passes: true });
    await env.store.appendEvent(building.id, {
      type: 'verdict.applied',
      runId: building.id,
      at: new Date().toISOString(),
      seq: 999,
      featureId: target.id,
      verdict: 'pass',
      mode: 'evaluate',
      passes: true,
      attempts: target.attempts,
    });
    await page.waitForSelector(`[data-feature="${target.id}"][data-state="pass"]`, { timeout: 1000 });
    expect(await page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).toBe(1);
  });

  it('pauses and resumes the run from the UI; with no worker connected the Now card and the runs list say so', async () => {
    const connection = { host: '127.0.0.1', port: 6379 };
    const queue = new Queue('sessions', { connection, prefix: `${env.prefix}bull` });
    const watched = await createDashboardServer({
      store: env.store,
      dataDir,
      port: 0,
      connectedWorkers: () => connectedWorkers({ sessions: queue }),
    });
    try {
      await open(`${watched.url}/runs/${building.id}`);
      await page.click('#pause-button:not([disabled])');
      await page.waitForSelector('#run-header .badge[data-status="paused"]');
      const run = await env.store.getRun(building.id);
      expect(run.status).toBe('paused');
      expect(run.pausedReason).toBe('user');
      expect(await page.locator('#now [data-field="no-worker"]').count()).toBe(0);
      await page.click('#resume-button:not([disabled])');
      await page.waitForSelector('#run-header .badge[data-status="building"]');
      expect((await env.store.getRun(building.id)).status).toBe('building');
      const note = page.locator('#now [data-field="no-worker"]');
      await note.waitFor();
      expect(await note.textContent()).toContain(
        'No worker is connected: start one with `nightshift worker`',
      );
      await open(`${watched.url}/`);
      const row = page.locator(`tr[data-run="${building.id}"] [data-field="no-worker"]`);
      await row.waitFor();
      expect(await row.textContent()).toBe('no worker connected');
      // A real worker on the queue: the runs list no longer says so at its next refresh.
      const worker = new Worker('sessions', async () => undefined, {
        connection,
        prefix: `${env.prefix}bull`,
      });
      try {
        await worker.waitUntilReady();
        await row.waitFor({ state: 'detached', timeout: 15_000 });
      } finally {
        await worker.close();
      }
    } finally {
      await watched.close();
      await queue.close();
    }
  });

  it('renders a hostile transcript as text and executes nothing', async () => {
    await open(`${server.url}/runs/${building.id}`);
    await page.click('[data-transcript="3"]');
    await page.waitForSelector('#transcript-lines .block-text');
    const texts = await page.locator('#transcript-lines .block-text').allTextContents();
    expect(texts).toContain(XSS);
    expect(await page.locator('#transcript-lines img, #transcript-lines script').count()).toBe(0);
    await page.waitForTimeout(300); // give a would-be onerror handler its chance to run
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  });

  it('shows the queues read-only in bull-board, offline, under its CSP', async () => {
    const queue = new Queue('sessions', {
      connection: { host: '127.0.0.1', port: 6379 },
      prefix: `${env.prefix}bull`,
    });
    const withQueue = await createDashboardServer({ store: env.store, dataDir, port: 0, queue });
    try {
      await queue.add('generate', { runId: building.id }, { jobId: `${building.id}-900` });
      // Through the top bar's link, as a user gets there; then a reload of the address it shows.
      await open(`${withQueue.url}/`);
      await page.click('header nav >> text=Queues');
      await page.waitForSelector('text=1 Job');
      expect(new URL(page.url()).pathname).toBe('/queues/');
      await page.reload();
      await page.waitForSelector('text=1 Job');
      expect((await fetch(`${withQueue.url}/queues`)).status).toBe(200);
      // bull-board links Google Fonts; the CSP blocks them (nothing leaves the machine) and its UI falls back.
      csp.splice(0, csp.length, ...csp.filter((message) => !message.includes('fonts.googleapis.com')));
      const put = await fetch(`${withQueue.url}/queues/api/queues/sessions/pause`, { method: 'PUT' });
      expect(put.status).toBe(405);
      expect(await queue.isPaused()).toBe(false);
    } finally {
      await withQueue.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('serves the UI through the token cookie when bound to 0.0.0.0', async () => {
    const token = 'ui-token-0123456789abcdef';
    const exposed = await createDashboardServer({
      store: env.store,
      dataDir,
      host: '0.0.0.0',
      port: 0,
      token,
    });
    try {
      const base = `http://127.0.0.1:${exposed.port}`;
      await open(`${base}/`);
      expect(await page.textContent('body')).toMatch(/token is required/);
      await page.goto(`${base}/runs/${paused.id}?token=${token}`);
      expect(page.url()).toBe(`${base}/runs/${paused.id}`);
      await page.waitForSelector('#live.connected');
      expect(await page.locator('#feature-grid [data-feature]').count()).toBe(9);
    } finally {
      await exposed.close();
    }
  });
});
