// The night's story at the overnight benchmark's size (60 features, 300 sessions) on real Redis: the endpoint behind
// the token, and the run page's story card in Chromium (counts, the stuck features with their reasons, a hostile
// feature name shown as text, the grid's stuck-first filter).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardServer, type DashboardServer } from '../../../dashboard/server.js';
import { RunStory } from '../../../dashboard/story-schema.js';
import type { FeatureState } from '../../../orchestrator/run/index.js';
import { launchChromium, watchedPages } from './browser.js';
import { openStore, SteppingClock } from './seed.js';
import { HOSTILE_NAME, HOSTILE_REASON, type StoryNight, seedStoryNight } from './seed-story.js';

const TOKEN = 'test-token-story-0123456789abcdef';

describe('the run story at 60 features and 300 sessions', () => {
  const clock = new SteppingClock(Date.parse('2026-11-28T20:00:00Z'));
  let env: Awaited<ReturnType<typeof openStore>>;
  let dataDir: string;
  let night: StoryNight;
  let features: FeatureState[];
  let guarded: DashboardServer;
  let local: DashboardServer;
  let browser: Browser;
  const pages = watchedPages(() => browser);

  beforeAll(async () => {
    env = await openStore(clock);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-story-'));
    night = await seedStoryNight(env.store, env.redis, clock, path.join(dataDir, 'ws'));
    features = await env.store.listFeatures(night.run.id);
    guarded = await createDashboardServer({
      store: env.store,
      dataDir,
      host: '0.0.0.0',
      port: 0,
      token: TOKEN,
    });
    local = await createDashboardServer({ store: env.store, dataDir, port: 0 });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await guarded?.close();
    await local?.close();
    await env?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The blocked features as the store has them, in list order. */
  const blocked = () => features.filter((feature) => feature.blocked && !feature.passes);

  it('serves the story only with the token, valid against its schema and true to the store', async () => {
    const url = `http://127.0.0.1:${guarded.port}/api/runs/${night.run.id}/story`;
    expect((await fetch(url)).status).toBe(401);
    const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    const story = RunStory.parse(await response.json());
    const run = await env.store.getRun(night.run.id);
    expect(run.counters.sessions).toBe(300);
    expect(story.sessions).toMatchObject({ finished: 300, running: 1 });
    expect(story.counts.total).toBe(60);
    expect(story.counts.passing).toBe(features.filter((feature) => feature.passes).length);
    expect(story.counts.blocked).toBe(blocked().length);
    expect(story.counts).toMatchObject({ waiting: 2, inProgress: 1 });
    expect(story.stuck.blocked.map(({ featureId, reason }) => ({ featureId, reason }))).toEqual(
      blocked().map((feature) => ({ featureId: feature.id, reason: feature.blockedReason })),
    );
    expect(story.stuck.blocked.find((entry) => entry.featureId === night.hostile)).toEqual({
      featureId: night.hostile,
      description: HOSTILE_NAME,
      reason: HOSTILE_REASON,
    });
    expect(story.stuck.struggling.map((entry) => entry.featureId)).toContain(night.struggling);
    expect(story.stuck.questions.map((question) => question.featureId)).toEqual(night.waiting);
    expect(story.running.map((session) => session.featureIds)).toEqual([[night.running]]);
    expect(story.cost.usd).toBeCloseTo(run.counters.costUsd, 6);
    expect(story.cost.perPassingUsd).toBeCloseTo(run.counters.costUsd / story.counts.passing, 5);
    // Every finished session is in exactly one bucket of the timeline, and it fits on a screen.
    expect(story.timeline.buckets.reduce((sum, bucket) => sum + bucket.sessions, 0)).toBe(300);
    expect(story.timeline.buckets.length).toBeLessThanOrEqual(24);
  });

  it('answers 404 for an unknown run and 400 for a malformed id', async () => {
    const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
    const base = `http://127.0.0.1:${guarded.port}/api/runs`;
    expect((await fetch(`${base}/r-nope/story`, auth)).status).toBe(404);
    expect((await fetch(`${base}/bad:id/story`, auth)).status).toBe(400);
  });

  let page: Page;

  it('tells the night at the top of the run page: counts, the stuck with why, a hostile name as text', async () => {
    page = await pages.open(`${local.url}/runs/${night.run.id}`, { width: 1360, height: 1000 });
    const card = page.locator('#story');
    await card.locator('[data-count="passing"]').waitFor();
    const count = async (key: string) =>
      (await card.locator(`[data-count="${key}"] strong`).textContent())?.trim();
    expect(await count('passing')).toBe(String(features.filter((feature) => feature.passes).length));
    expect(await count('blocked')).toBe(String(blocked().length));
    expect(await count('waiting')).toBe('2');
    expect(await count('inProgress')).toBe('1');
    // The story card comes right after the header, before the rest of the page's cards.
    expect(
      await page.evaluate(() =>
        [...document.getElementById('app')!.children].findIndex((c) => c.id === 'story'),
      ),
    ).toBe(1);
    const rows = card.locator('[data-field="blocked"] li[data-feature-id]');
    expect(
      await rows.evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.featureId)),
    ).toEqual(blocked().map((feature) => feature.id));
    const hostile = card.locator(`li[data-feature-id="${night.hostile}"]`);
    expect(await hostile.textContent()).toBe(`${night.hostile} ${HOSTILE_NAME} — ${HOSTILE_REASON}`);
    expect(await hostile.locator('img, b, script').count()).toBe(0);
    expect(await card.locator('[data-field="questions"] li').count()).toBe(2);
    expect(await card.locator('[data-field="struggling"]').textContent()).toContain(night.struggling);
    expect(await card.locator('[data-field="next"]').textContent()).toContain(`on ${night.running}`);
    expect(await card.locator('[data-field="timeline"] .story-bucket').count()).toBeGreaterThan(1);
    // Each bucket is labelled with its hour's start, to the minute.
    const labels = await card.locator('[data-field="timeline"] .story-bucket .small.muted').allTextContents();
    for (const label of labels) expect(label).toMatch(/^\d{2}:\d{2}$/);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // A stuck feature's id opens its panel.
    await hostile.locator('button[data-story-feature]').click();
    await page.waitForSelector(`#feature-detail[data-feature="${night.hostile}"]`);
    await pages.closeLast();
    expect(pages.csp, 'CSP violations').toEqual([]);
  });

  it('shows the stuck features first in the grid, and one kind only when filtered', async () => {
    page = await pages.open(`${local.url}/runs/${night.run.id}`, { width: 1360, height: 1000 });
    await page.waitForSelector('#feature-grid[data-complete="true"]');
    // Stuck first (the default): the first cell on screen is blocked or failing.
    const firstShown = await page.evaluate(() => {
      const cells = [...document.querySelectorAll<HTMLElement>('#feature-grid .cell')];
      cells.sort(
        (a, b) =>
          a.getBoundingClientRect().top - b.getBoundingClientRect().top ||
          a.getBoundingClientRect().left - b.getBoundingClientRect().left,
      );
      return cells[0]?.dataset.state;
    });
    expect(['blocked', 'fail']).toContain(firstShown);
    await page.selectOption('#grid-filter', 'blocked');
    const visible = await page.$$eval('#feature-grid .cell', (cells) =>
      cells
        .filter((cell) => (cell as HTMLElement).offsetParent !== null)
        .map((cell) => (cell as HTMLElement).dataset.feature),
    );
    expect(visible.sort()).toEqual(blocked().map((feature) => feature.id));
    await pages.closeLast();
    expect(pages.csp, 'CSP violations').toEqual([]);
  });
});
