// The run page of a run in parallel lanes, in real Chromium, over lanes seeded through the run store's own lane
// writes: the Lanes card (each lane's feature, branch and step, the merge queue), the grid's lane badges and
// waiting-to-merge marks, the timeline's Lane column, and merge results in the Now card; a serial run shows none.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../dashboard/api-types.js';
import { createDashboardServer, type DashboardServer } from '../../../dashboard/server.js';
import { recordMergeResults } from '../../../orchestrator/lanes/lane-store.js';
import { LanesView } from '../../../orchestrator/lanes/lane-view.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import { launchChromium, watchedPages } from './browser.js';
import { openStore, SteppingClock, seedRun } from './seed.js';
import { type SeededLanes, seedLanes } from './seed-lanes.js';

describe('run page of a run in lanes, in Chromium', () => {
  let env: Awaited<ReturnType<typeof openStore>>;
  let dataDir: string;
  let server: DashboardServer;
  let browser: Browser;
  let page: Page;
  const pages = watchedPages(() => browser);
  let laned: RunRecord;
  let serial: RunRecord;
  let seeded: SeededLanes;

  beforeAll(async () => {
    const clock = new SteppingClock(Date.now() - 3 * 3_600_000);
    env = await openStore(clock);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-dash-lanes-'));
    const seed = { features: 12, sessions: 4, clock, verdictFor: () => 'pass' as const };
    laned = await seedRun(env.store, { ...seed, workspace: path.join(dataDir, 'ws1') });
    seeded = await seedLanes(env.store, laned.id, clock);
    serial = await seedRun(env.store, { ...seed, workspace: path.join(dataDir, 'ws2') });
    browser = await launchChromium();
    server = await createDashboardServer({ store: env.store, dataDir, port: 0 });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await env?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await pages.closeLast();
    expect(pages.csp, 'CSP violations').toEqual([]);
  });

  const open = async (run: RunRecord) => {
    page = await pages.open(`${server.url}/runs/${run.id}`, { width: 1360, height: 1000 });
    await page.waitForSelector('#feature-grid[data-complete="true"]');
    return page;
  };
  const text = async (selector: string) => (await page.locator(selector).textContent()) ?? '';

  it('answers the run with a lanes view the zod schema accepts', async () => {
    page = await pages.open(`${server.url}/`);
    const response = (await page.evaluate(async (id) => {
      const answer = await fetch(`/api/runs/${id}`, { credentials: 'same-origin' });
      return answer.json();
    }, laned.id)) as RunResponse;
    const lanes = LanesView.parse(response.lanes);
    expect(lanes.lanes.map((lane) => [lane.lane, lane.featureId, lane.step.kind])).toEqual([
      [1, 'F-004', 'session'],
      [2, 'F-005', 'merging'],
      [3, 'F-006', 'waiting-merge'],
    ]);
    expect(lanes).toMatchObject({ configured: 3, merging: 2, waiting: [3] });
    expect(lanes.recentMerges.map((merge) => merge.outcome)).toEqual(['rejected', 'conflict', 'merged']);
  });

  it('shows what each lane does, the merge queue, and the merge results', async () => {
    await open(laned);
    await page.waitForSelector('#lanes:not([hidden]) [data-lane="3"]');
    const lane1 = await text('#lanes [data-lane="1"]');
    expect(lane1).toContain('lane 1');
    expect(lane1).toContain('F-004');
    expect(lane1).toContain('Reorder tasks by drag and drop');
    expect(lane1).toContain(`nightshift/${laned.id}/lane-1-F-004`);
    expect(await text('#lanes [data-lane="1"] [data-field="step"]')).toBe('generator');
    expect(lane1).toContain(`session ${seeded.generatorSeq}`);
    expect(lane1).toContain('worker-a');
    expect(await text('#lanes [data-lane="2"] [data-field="step"]')).toBe('merging');
    expect(await text('#lanes [data-lane="3"] [data-field="step"]')).toBe('waiting to merge');
    expect(await text('#lanes [data-lane="3"] [data-field="last-merge"]')).toContain(
      'rejected, red checks on the merged head: F-001: the task list is empty after a reload',
    );
    expect(await text('#lanes [data-lane="3"]')).toContain('2 merge setback(s)');
    expect(await text('#lanes [data-field="merge-queue"]')).toBe(
      'Merge queue: merging lane 2 (F-005) · waiting: lane 3',
    );
    const merges = await page.locator('#now [data-merge]').allInnerTexts();
    expect(merges).toEqual([
      expect.stringContaining('lane 3 · F-006: rejected, red checks on the merged head: F-001'),
      expect.stringContaining('lane 3 · F-006: conflict in src/list.ts, src/store.ts'),
      expect.stringContaining('lane 1 · F-003 merged (head c0ffee1, 1 check(s) green'),
    ]);
  });

  it('marks the features in flight in the grid, and the ones waiting to merge apart', async () => {
    await open(laned);
    await page.waitForSelector('[data-feature="F-004"] .cell-lane');
    expect(await text('[data-feature="F-004"] .cell-lane')).toBe('lane 1');
    expect(await page.locator('[data-feature="F-004"] .cell-merge').count()).toBe(0);
    for (const [id, lane] of [
      ['F-005', 'lane 2'],
      ['F-006', 'lane 3'],
    ]) {
      expect(await text(`[data-feature="${id}"] .cell-lane`)).toBe(lane);
      expect(await page.locator(`[data-feature="${id}"].merge-pending .cell-merge`).count()).toBe(1);
    }
    // F-003 was merged: it passes and holds no lane.
    expect(await page.locator('[data-feature="F-003"] .cell-lane').count()).toBe(0);
    expect(await page.getAttribute('[data-feature="F-003"]', 'data-state')).toBe('pass');
    expect(await page.locator('.cell-lane').count()).toBe(3);
  });

  it('puts each session on its lane in the timeline, so overlapping sessions read as parallel', async () => {
    await open(laned);
    await page.waitForSelector(
      `#timeline tr[data-seq="${seeded.generatorSeq}"] [data-field="lane"] .lane-label`,
    );
    expect(await page.locator('#timeline th').allInnerTexts()).toContain('Lane');
    const lane = (seq: number) => text(`#timeline tr[data-seq="${seq}"] [data-field="lane"] .lane-label`);
    expect(await lane(seeded.generatorSeq)).toBe('lane 1');
    expect(await lane(seeded.evaluatorSeq)).toBe('lane 2');
    expect(await lane(1)).toBe('run');
    const marks = page.locator(`#timeline tr[data-seq="${seeded.evaluatorSeq}"] .lane-mark`);
    expect(await marks.count()).toBe(3);
    expect(await marks.nth(1).getAttribute('class')).toBe('lane-mark on');
  });

  it('follows a merge live: the Now card shows it, the lane and its grid badge are freed', async () => {
    await open(laned);
    await page.waitForSelector('#lanes [data-lane="2"][data-step="merging"]');
    await recordMergeResults(
      env.store,
      laned.id,
      seeded.mergingSeq,
      [
        {
          lane: 2,
          featureId: 'F-005',
          outcome: 'merged',
          detail: '',
          head: 'feed0001',
          checked: ['F-001', 'F-003'],
        },
      ],
      new Date(),
    );
    await page.waitForSelector('#now [data-merge="merged"] >> text=lane 2 · F-005 merged');
    await page.waitForSelector('#lanes [data-lane="2"][data-step="free"]');
    await page.waitForSelector('[data-feature="F-005"][data-state="pass"]:not(.on-lane)');
    expect(await text('#lanes [data-field="merge-queue"]')).toBe('Merge queue: idle · waiting: lane 3');
  });

  it('shows no lanes on a serial run', async () => {
    await open(serial);
    await page.waitForSelector('#timeline tr[data-seq="1"]');
    expect(await page.locator('#lanes').isHidden()).toBe(true);
    expect(await page.locator('#timeline th').allInnerTexts()).not.toContain('Lane');
    expect(await page.locator('.cell-lane').count()).toBe(0);
  });
});
