/**
 * Dashboard at scale: a run with 1,000 features and 2,000 sessions seeded through the real RunStore (the
 * dashboard tests' seeding code), then the JSON API timed with fetch and the run page loaded in Chromium.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createDashboardServer } from '../dashboard/server.js';
import { launchChromium } from '../test/integration/dashboard/browser.js';
import { openStore, SteppingClock, seedRun } from '../test/integration/dashboard/seed.js';
import { Spread, spread } from './stats.js';

/** One timed API request. */
export const ApiTiming = z.object({ request: z.string(), ms: Spread, bytes: z.number().int() });
export type ApiTiming = z.infer<typeof ApiTiming>;

/** The dashboard section of the report. */
export const DashboardResult = z.object({
  features: z.number().int(),
  sessions: z.number().int(),
  seedMs: z.number(),
  api: z.array(ApiTiming),
  /** Navigation → feature grid, chart and timeline found by Playwright (first load excluded). */
  pageReadyMs: Spread,
  /** Same, by the page's own clock (navigation start → all three in the DOM). */
  pageReadyInPageMs: Spread,
  /** By the page's clock: navigation start → the last grid cell rendered (the grid renders in chunks). */
  gridCompleteInPageMs: Spread.optional(),
  /** Navigation → the header and the grid's first cell (the first screen), by the page's clock. */
  firstScreenInPageMs: Spread.optional(),
  firstLoadMs: z.number(),
});
export type DashboardResult = z.infer<typeof DashboardResult>;

async function timeRequest(url: string, repetitions: number): Promise<{ ms: Spread; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  await fetch(url).then((response) => response.arrayBuffer());
  for (let index = 0; index < repetitions; index++) {
    const started = performance.now();
    const response = await fetch(url);
    const body = await response.arrayBuffer();
    times.push(performance.now() - started);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    bytes = body.byteLength;
  }
  return { ms: spread(times), bytes };
}

/** Seeds the big run, times the API and the page; cleans up its keys and files. */
export async function measureDashboard(options: {
  features: number;
  sessions: number;
  apiRepetitions: number;
  pageLoads: number;
}): Promise<DashboardResult> {
  const clock = new SteppingClock(Date.now() - 7 * 86_400_000);
  const env = await openStore(clock);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nsbench-dashboard-'));
  const browser = await launchChromium();
  try {
    const seedStarted = Date.now();
    const run = await seedRun(env.store, {
      features: options.features,
      sessions: options.sessions,
      workspace: path.join(dataDir, 'ws'),
      clock,
    });
    const seedMs = Date.now() - seedStarted;
    const server = await createDashboardServer({ store: env.store, dataDir, port: 0 });
    try {
      const api = await timeApi(server.url, run.id, options.apiRepetitions);
      const loads: PageLoad[] = [];
      for (let index = 0; index < options.pageLoads + 1; index++)
        loads.push(await loadRunPage(browser, `${server.url}/runs/${run.id}`, run.features.total));
      // The first load is apart: it warms the server's caches and the browser's.
      const warm = loads.slice(1);
      return {
        features: run.features.total,
        sessions: run.counters.sessions,
        seedMs,
        api,
        pageReadyMs: spread(warm.map((load) => load.readyMs)),
        pageReadyInPageMs: spread(warm.map((load) => load.readyInPageMs)),
        gridCompleteInPageMs: spread(warm.map((load) => load.gridCompleteInPageMs)),
        firstScreenInPageMs: spread(warm.map((load) => load.firstScreenInPageMs)),
        firstLoadMs: Number((loads[0]?.readyMs ?? 0).toFixed(1)),
      };
    } finally {
      await server.close();
    }
  } finally {
    await browser.close();
    await env.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Times each API request the run page makes (and the runs list) against the seeded run. */
async function timeApi(serverUrl: string, runId: string, repetitions: number): Promise<ApiTiming[]> {
  const base = `${serverUrl}/api/runs/${runId}`;
  const requests: Array<[string, string]> = [
    ['GET /api/runs', `${serverUrl}/api/runs`],
    ['GET /api/runs/:id', base],
    ['GET /api/runs/:id/grid (compact grid)', `${base}/grid`],
    ['GET /api/runs/:id/features', `${base}/features`],
    ['GET /api/runs/:id/sessions (first page of 50)', `${base}/sessions?offset=0&limit=50`],
    ['GET /api/runs/:id/sessions (page at 1,950)', `${base}/sessions?offset=1950&limit=50`],
    ['GET /api/runs/:id/progress', `${base}/progress`],
  ];
  const api: ApiTiming[] = [];
  for (const [request, url] of requests) api.push({ request, ...(await timeRequest(url, repetitions)) });
  return api;
}

/** The times of one page load. */
interface PageLoad {
  readyMs: number;
  readyInPageMs: number;
  gridCompleteInPageMs: number;
  firstScreenInPageMs: number;
}

/** Loads the run page once in a new tab and reads its times; throws when the grid does not show every feature. */
async function loadRunPage(
  browser: Awaited<ReturnType<typeof launchChromium>>,
  url: string,
  total: number,
): Promise<PageLoad> {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  await page.addInitScript(() => {
    const w = window as unknown as { __ready?: number; __complete?: number; __first?: number };
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-feature="F-001"]') && document.querySelector('#run-header h1'))
        w.__first ??= performance.now();
      const ready = ['[data-feature="F-001"]', '#progress-chart', '#timeline tbody tr'].every((selector) =>
        document.querySelector(selector),
      );
      if (ready) w.__ready ??= performance.now();
      if (document.querySelector('#feature-grid[data-complete]')) w.__complete ??= performance.now();
      if (w.__ready !== undefined && w.__complete !== undefined) observer.disconnect();
    }).observe(document, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ['data-complete'],
    });
  });
  const started = performance.now();
  await page.goto(url);
  await page.waitForSelector('#feature-grid [data-feature="F-001"]');
  await page.waitForSelector('#timeline tbody tr');
  await page.waitForSelector('#progress-chart');
  const readyMs = performance.now() - started;
  const readyInPageMs = await page.evaluate(() => (window as unknown as { __ready: number }).__ready);
  await page.waitForSelector('#feature-grid[data-complete]');
  const gridCompleteInPageMs = await page.evaluate(
    () => (window as unknown as { __complete: number }).__complete,
  );
  const firstScreenInPageMs = await page.evaluate(() => (window as unknown as { __first: number }).__first);
  const cells = await page.locator('#feature-grid [data-feature]').count();
  if (cells !== total) throw new Error(`grid shows ${cells} of ${total} features`);
  await page.close();
  return { readyMs, readyInPageMs, gridCompleteInPageMs, firstScreenInPageMs };
}
