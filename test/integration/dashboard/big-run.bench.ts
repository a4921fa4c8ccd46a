// Dashboard scale benchmark: a run with 1,000 features and 2,000 sessions, seeded through RunStore into real Redis.
// Prints the median latency of the main API calls and the page-ready time (navigation → grid and timeline rendered).
// Run: npx tsx test/integration/dashboard/big-run.bench.ts [--features N] [--sessions N]   (Redis + Chromium needed)
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDashboardServer } from '../../../dashboard/server.js';
import { launchChromium } from './browser.js';
import { openStore, SteppingClock, seedRun } from './seed.js';

const { values } = parseArgs({
  options: { features: { type: 'string', default: '1000' }, sessions: { type: 'string', default: '2000' } },
});
const FEATURES = Number(values.features);
const SESSIONS = Number(values.sessions);

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timeRequest(url: string, n: number): Promise<{ median: number; max: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const response = await fetch(url);
    const body = await response.arrayBuffer();
    times.push(performance.now() - started);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    bytes = body.byteLength;
  }
  return { median: median(times), max: Math.max(...times), bytes };
}

async function main(): Promise<void> {
  const clock = new SteppingClock(Date.now() - 7 * 86_400_000);
  const env = await openStore(clock);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-dash-bench-'));
  const browser = await launchChromium();
  try {
    const seedStarted = Date.now();
    const run = await seedRun(env.store, {
      features: FEATURES,
      sessions: SESSIONS,
      workspace: path.join(dataDir, 'ws'),
      clock,
    });
    console.log(
      `seeded ${run.features.total} features, ${run.counters.sessions} sessions in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`,
    );
    const server = await createDashboardServer({ store: env.store, dataDir, port: 0 });
    const base = `${server.url}/api/runs/${run.id}`;
    const rows: [string, string][] = [
      ['GET /api/runs', `${server.url}/api/runs`],
      ['GET /api/runs/:id', base],
      ['GET /api/runs/:id/features', `${base}/features`],
      ['GET /api/runs/:id/sessions (page of 50)', `${base}/sessions?offset=0&limit=50`],
      ['GET /api/runs/:id/sessions (page at 1,950)', `${base}/sessions?offset=1950&limit=50`],
      ['GET /api/runs/:id/progress', `${base}/progress`],
    ];
    console.log('\n| request | median ms | max ms | bytes |\n|---|---|---|---|');
    for (const [label, url] of rows) {
      await fetch(url).then((r) => r.arrayBuffer());
      const t = await timeRequest(url, 21);
      console.log(
        `| ${label} | ${t.median.toFixed(1)} | ${t.max.toFixed(1)} | ${t.bytes.toLocaleString('en')} |`,
      );
    }
    const loads: number[] = [];
    const inPage: number[] = [];
    for (let i = 0; i < 6; i++) {
      const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      // In-page clock: navigation start → the moment grid, chart and timeline are all in the DOM.
      await page.addInitScript(() => {
        const w = window as unknown as { __ready?: number };
        new MutationObserver((_, observer) => {
          const ready = ['[data-feature="F-001"]', '#progress-chart', '#timeline tbody tr'].every(
            (selector) => document.querySelector(selector),
          );
          if (!ready) return;
          w.__ready = performance.now();
          observer.disconnect();
        }).observe(document, { childList: true, subtree: true });
      });
      const started = performance.now();
      await page.goto(`${server.url}/runs/${run.id}`);
      await page.waitForSelector('#feature-grid [data-feature="F-001"]');
      await page.waitForSelector('#timeline tbody tr');
      await page.waitForSelector('#progress-chart');
      loads.push(performance.now() - started);
      inPage.push(await page.evaluate(() => (window as unknown as { __ready: number }).__ready));
      const cells = await page.locator('#feature-grid [data-feature]').count();
      if (cells !== run.features.total)
        throw new Error(`grid shows ${cells} of ${run.features.total} features`);
      await page.close();
    }
    const fmt = (xs: number[]) =>
      `first ${xs[0]!.toFixed(0)} ms, median of next 5 ${median(xs.slice(1)).toFixed(0)} ms`;
    console.log(`\npage ready, Playwright clock (goto → selectors found): ${fmt(loads)}`);
    console.log(
      `page ready, in-page clock (navigation start → grid, chart, timeline in the DOM): ${fmt(inPage)}`,
    );
    const load = os.loadavg().map((x) => x.toFixed(1));
    console.log(`load average: ${load.join(', ')} on ${os.cpus().length} cores`);
    await server.close();
  } finally {
    await browser.close();
    await env.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
