// Steering a feature through the HTTP API (token-protected; bad input changes nothing) and the feature panel in real
// Chromium (a note shown as text, a reopen), on a run seeded through the real RunStore; adding a feature from the run
// page's form (the real addFeature over the scripted feature writer), and the API's answers when it cannot.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../../agent/providers/index.js';
import { storeRunControls } from '../../../dashboard/controls.js';
import { createDashboardServer, type DashboardServer } from '../../../dashboard/server.js';
import { addFeature } from '../../../orchestrator/feature-add.js';
import { openQueues } from '../../../orchestrator/queues.js';
import { openBullConnection } from '../../../orchestrator/redis-client.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { startModelServer } from '../../../testkit/server.js';
import { launchChromium, watchedPages } from './browser.js';
import { openStore, SteppingClock, seedRun } from './seed.js';

const TOKEN = 'steer-token-0123456789abcdef';
const MARKUP = 'Use <b>Save</b> <img src=x onerror="window.__pwned = 1">';

describe('steering a feature from the dashboard', () => {
  let env: Awaited<ReturnType<typeof openStore>>;
  let dataDir: string;
  let server: DashboardServer;
  let browser: Browser;
  let run: RunRecord;
  const pages = watchedPages(() => browser);

  beforeAll(async () => {
    const clock = new SteppingClock(Date.now() - 3_600_000);
    env = await openStore(clock);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-dash-steer-'));
    // F-001 and F-002 pass, F-003 and F-004 are still to build.
    run = await seedRun(env.store, {
      features: 4,
      sessions: 4,
      workspace: path.join(dataDir, 'ws'),
      clock,
      verdictFor: () => 'pass',
    });
    server = await createDashboardServer({
      store: env.store,
      dataDir,
      host: '0.0.0.0',
      port: 0,
      token: TOKEN,
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await env?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  const base = () => `http://127.0.0.1:${server.port}`;
  const post = (p: string, body: unknown, token: string | null = TOKEN) =>
    fetch(`${base()}/api/runs/${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const snapshot = async () => ({
    features: await env.store.listFeatures(run.id),
    events: await env.store.eventCount(run.id),
  });

  it('refuses bad requests with a clear answer and changes nothing', async () => {
    const before = await snapshot();
    const cases: Array<[string, unknown, number, RegExp, (string | null)?]> = [
      [`${run.id}/features/F-003/note`, { text: 'hi' }, 401, /token is required/, null],
      ['no-such-run/features/F-003/note', { text: 'hi' }, 404, /no-such-run/],
      [`${run.id}/features/F-099/note`, { text: 'hi' }, 404, /has no feature F-099/],
      [`${run.id}/features/F-003/note`, { text: '   ' }, 400, /text: must not be empty; nothing changed/],
      [
        `${run.id}/features/F-003/reopen`,
        { reason: 'wrong' },
        409,
        /Cannot reopen F-003 .*it is not passing; nothing changed/,
      ],
      [`${run.id}/features/F-001/reopen`, {}, 400, /reason/],
      [`${run.id}/features/F-003/unblock`, {}, 409, /it is not blocked/],
    ];
    for (const [route, body, status, message, token] of cases) {
      const response = await post(route, body, token === undefined ? TOKEN : token);
      expect(response.status, route).toBe(status);
      expect((await response.json()).message, route).toMatch(message);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a note (shown as text) and a reopen from the feature panel', async () => {
    const page = await pages.open(`${base()}/runs/${run.id}?token=${TOKEN}#feature=F-003`);
    await page.waitForSelector('#steering');
    expect(await page.locator('#steer-reopen').isDisabled()).toBe(true);
    await page.fill('#steer-text', MARKUP);
    await page.click('#steer-note');
    await page.waitForSelector('#steering .human-notes li[data-kind="note"]');
    expect(await page.textContent('#steering .human-notes .note-text')).toBe(MARKUP);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();

    await page.goto(`${base()}/runs/${run.id}#feature=F-001`);
    await page.waitForSelector('#steer-reopen:not([disabled])');
    await page.fill('#steer-text', 'The list flickers after adding');
    await page.click('#steer-reopen');
    await page.waitForSelector('#steering .human-notes li[data-kind="reopen"]');
    const features = await env.store.listFeatures(run.id);
    expect(features.find((f) => f.id === 'F-001')).toMatchObject({ passes: false, attempts: 0 });
    expect(features.find((f) => f.id === 'F-003')?.humanNotes.map((n) => [n.kind, n.text, n.by])).toEqual([
      ['note', MARKUP, 'dashboard'],
    ]);
    const steered = (await env.store.readEvents(run.id, { count: 10_000 }))
      .map(({ event }) => event)
      .filter((event) => event.type === 'feature.steered');
    expect(steered.map((e) => [e.featureId, e.action, e.by])).toEqual([
      ['F-003', 'note', 'dashboard'],
      ['F-001', 'reopen', 'dashboard'],
    ]);
    expect(pages.csp).toEqual([]);
  });
});

describe('adding a feature from the dashboard', () => {
  let env: Awaited<ReturnType<typeof openStore>>;
  let dataDir: string;
  let servers: DashboardServer[];
  let browser: Browser;
  let run: RunRecord;
  let model: Awaited<ReturnType<typeof startModelServer>>;
  let bull: ReturnType<typeof openBullConnection>;
  let queues: ReturnType<typeof openQueues>;
  const pages = watchedPages(() => browser);

  beforeAll(async () => {
    const clock = new SteppingClock(Date.now() - 3_600_000);
    env = await openStore(clock);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ns-dash-add-'));
    run = await seedRun(env.store, { features: 2, sessions: 2, workspace: path.join(dataDir, 'ws'), clock });
    model = await startModelServer({ policy: demoPolicy });
    bull = openBullConnection('redis://127.0.0.1:6379');
    queues = openQueues(bull.connection, env.prefix);
    const orchestrator = {
      redis: env.redis,
      store: env.store,
      queues,
      prefix: env.prefix,
      now: () => new Date(),
    };
    const scripted = {
      ANTHROPIC_API_KEY: 'sk-ant-scripted-000000',
      ANTHROPIC_BASE_URL: model.anthropicBaseURL,
    };
    const controls = {
      ...storeRunControls(env.store),
      addFeature: async (runId: string, text: string, by: 'dashboard' | 'api') =>
        (
          await addFeature(orchestrator, {
            runId,
            text,
            by,
            dataDir,
            providerFor: () => createProvider('anthropic:scripted', { env: scripted, maxRetries: 0 }),
          })
        ).feature,
    };
    const common = { store: env.store, dataDir, host: '0.0.0.0', port: 0, token: TOKEN };
    // The first has no model (a store-only dashboard), the second adds through the orchestrator.
    servers = [await createDashboardServer(common), await createDashboardServer({ ...common, controls })];
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    for (const server of servers ?? []) await server.close();
    await queues?.close();
    await bull?.close();
    await model?.close();
    await env?.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  });

  const post = (server: DashboardServer, body: unknown, token: string | null = TOKEN) =>
    fetch(`http://127.0.0.1:${server.port}/api/runs/${run.id}/features`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });

  it('answers why nothing was added, and changes nothing', async () => {
    const before = {
      features: await env.store.listFeatures(run.id),
      events: await env.store.eventCount(run.id),
    };
    const [storeOnly, wired] = servers as [DashboardServer, DashboardServer];
    const cases: Array<[DashboardServer, unknown, string | null, number, RegExp]> = [
      [wired, { description: 'x' }, null, 401, /token is required/],
      [
        storeOnly,
        { description: 'A dark mode switch' },
        TOKEN,
        503,
        /cannot add features: it was started without a model/,
      ],
      [wired, { text: 'A dark mode switch' }, TOKEN, 400, /description/],
      [wired, { description: '  ' }, TOKEN, 400, /Invalid feature description: the text/],
      [
        wired,
        { description: 'Impossible [scripted:invalid]' },
        TOKEN,
        422,
        /No feature was added: the feature was refused 3 times/,
      ],
    ];
    for (const [server, body, token, status, message] of cases) {
      const response = await post(server, body, token);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect((await response.json()).message, JSON.stringify(body)).toMatch(message);
    }
    expect({
      features: await env.store.listFeatures(run.id),
      events: await env.store.eventCount(run.id),
    }).toEqual(before);
  });

  it("the run page's form adds the feature and says which id it got", async () => {
    const wired = servers[1] as DashboardServer;
    const page = await pages.open(`http://127.0.0.1:${wired.port}/runs/${run.id}?token=${TOKEN}`);
    await page.fill('#add-feature-text', 'A dark mode switch in the header');
    await page.click('#add-feature');
    await page.waitForFunction(() =>
      /added/.test(document.querySelector('#add-feature-status')?.textContent ?? ''),
    );
    expect(await page.textContent('#add-feature-status')).toBe(
      'F-003 added: A dark mode switch in the header',
    );
    expect(await page.inputValue('#add-feature-text')).toBe('');
    const features = await env.store.listFeatures(run.id);
    expect(features.at(-1)).toMatchObject({
      id: 'F-003',
      passes: false,
      steps: ['Open the app', 'A dark mode switch in the header'],
    });
    const added = (await env.store.readEvents(run.id, { count: 10_000 }))
      .map(({ event }) => event)
      .filter((event) => event.type === 'feature.added');
    expect(added.map((event) => [event.featureId, event.by])).toEqual([['F-003', 'dashboard']]);
    expect(pages.csp).toEqual([]);
  });
});
