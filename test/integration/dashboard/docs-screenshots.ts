// Takes docs/screenshots/runs.png and run.png from a dashboard fed with realistic seeded state.
// Run: npx tsx test/integration/dashboard/docs-screenshots.ts   (needs Redis on 127.0.0.1:6379 and Chromium)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { evidenceDir } from '../../../dashboard/paths.js';
import { createDashboardServer } from '../../../dashboard/server.js';
import { launchChromium, pngOf } from './browser.js';
import { openStore, SteppingClock, seedRun, writeTranscript } from './seed.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

async function main(): Promise<void> {
  const hour = 3_600_000;
  const clock = new SteppingClock(Date.now() - 9 * hour);
  const env = await openStore(clock);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-dash-shots-'));
  const browser = await launchChromium();
  try {
    const done = await seedRun(env.store, {
      features: 24,
      sessions: 70,
      specName: 'recipe-box',
      workspace: '/srv/work/recipe-box',
      clock,
    });
    clock.advance(hour);
    const paused = await seedRun(env.store, {
      features: 36,
      sessions: 44,
      specName: 'kanban-board',
      workspace: '/srv/work/kanban',
      clock,
      status: 'paused',
    });
    clock.ms = Date.now() - 7 * hour; // the seeded sessions end a little before now
    const workspace = path.join(dataDir, 'todo-app');
    const main = await seedRun(env.store, {
      features: 60,
      sessions: 96,
      specName: 'todo-app',
      workspace,
      clock,
      recordVerdicts: true,
    });
    await env.store.appendEvent(main.id, {
      type: 'nightly.summary',
      runId: main.id,
      at: new Date().toISOString(),
      since: new Date(Date.now() - 6 * hour).toISOString(),
      newlyPassing: ['F-031', 'F-032', 'F-034', 'F-035'],
      newlyFailing: ['F-012'],
      blocked: ['F-017'],
      blockedReasons: [],
      costUsd: 14.2,
      passing: main.features.passing,
      total: main.features.total,
    });
    await writeTranscript(dataDir, main.id, 2, 'Implemented the task list.');
    // What the run is doing now: the evaluator checking the next feature.
    const running = await env.store.nextSeq(main.id);
    await env.store.recordSessionStarted(main.id, {
      seq: running,
      jobId: `${main.id}-${running}`,
      role: 'evaluator',
      kind: 'evaluate',
      featureIds: ['F-035'],
      workerId: 'build-box-1',
      startedAt: new Date(Date.now() - 95_000).toISOString(),
    });
    // Evidence for F-003's evaluations: a real screenshot of a tiny page, and a trace file to download.
    const png = await pngOf(
      browser,
      '<body style="font:16px sans-serif;background:#fff"><h2>Todos</h2><ul><li>Buy milk</li><li>Write report</li></ul><button>Undo delete</button></body>',
      { width: 480, height: 300 },
    );
    for (const session of (await env.store.listSessions(main.id, { limit: 500 })).sessions) {
      if (!session.verdicts.some((v) => v.featureId === 'F-003')) continue;
      const dir = path.join(evidenceDir(dataDir, main.id), String(session.seq));
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, '01-start.png'), png);
      await writeFile(path.join(dir, 'trace.zip'), 'PK');
    }
    void done;
    // The kanban run waits for its nightly schedule: tomorrow 01:00 local time.
    const tomorrow = new Date();
    tomorrow.setDate(tomorrow.getDate() + 1);
    tomorrow.setHours(1, 0, 0, 0);
    const nextScheduledStart = async (runId: string) => (runId === paused.id ? tomorrow.toISOString() : null);
    const server = await createDashboardServer({ store: env.store, dataDir, port: 0, nextScheduledStart });
    const page = await browser.newPage({ viewport: { width: 1360, height: 760 }, deviceScaleFactor: 1 });
    await mkdir(path.join(root, 'docs/screenshots'), { recursive: true });
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#runs-table tbody tr >> nth=2');
    await page.screenshot({ path: path.join(root, 'docs/screenshots/runs.png') });
    await page.setViewportSize({ width: 1360, height: 1800 });
    await page.goto(`${server.url}/runs/${main.id}#feature=F-003`);
    await page.waitForSelector('#timeline tbody tr');
    await page.waitForSelector('#feature-detail .verdict');
    await page.waitForSelector('#feature-grid[data-complete]');
    await page.screenshot({ path: path.join(root, 'docs/screenshots/run.png') });
    await server.close();
    await writeFile(path.join(os.tmpdir(), 'ns-dash-shots.done'), new Date().toISOString());
  } finally {
    await browser.close();
    await env.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
