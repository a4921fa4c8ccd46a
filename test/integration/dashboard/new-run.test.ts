import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardPlanDesk } from '../../../cli/dashboard-planning.js';
import type { PlanView } from '../../../dashboard/api-types.js';
import type { PlanDesk } from '../../../dashboard/plan-desk.js';
import { createDashboardApp, type DashboardServer } from '../../../dashboard/server.js';
import { openRepo, runGit } from '../../../handoff/git.js';
import { PLAN_RECORD_FILE } from '../../../handoff/spec-origin.js';
import { NightshiftConfig } from '../../../orchestrator/config.js';
import { PLANNER_QUESTIONS, plannerPolicy } from '../../../testkit/policies/planner.js';
import { createRunHarness, type RunHarness, SCRIPTED_MODEL, SCRIPTED_PRICE } from '../runs/harness.js';
import { openPlanningDashboard, type PlanningDashboard } from './planning-dashboard.js';

// The dashboard's new-run form end to end in real Chromium: idea → the planner's questions → the spec, edited →
// start → the run exists, through the CLI's own wiring (dashboardPlanDesk: configured model, startPlannedRun),
// the scripted planner over the real Anthropic SDK, and real Redis and git.
const XSS = '<img src=x onerror="window.__pwned = 1">';

let harness: RunHarness;
let desk: PlanDesk;
let server: DashboardServer;
let browser: Browser;
let dashboard: PlanningDashboard;
let page: Page;
const csp: string[] = [];

function planDeskFor(h: RunHarness, maxActive?: number): PlanDesk {
  const config = NightshiftConfig.parse({
    dataDir: h.dataDir,
    run: {
      models: { generator: SCRIPTED_MODEL },
      prices: { [SCRIPTED_MODEL]: SCRIPTED_PRICE },
      sandbox: { bubblewrap: 'off' },
    },
  });
  const env = { ANTHROPIC_API_KEY: 'sk-ant-scripted-000000', ANTHROPIC_BASE_URL: h.server.anthropicBaseURL };
  return dashboardPlanDesk(
    { config, orchestrator: h.orchestrator, dataDir: h.dataDir },
    env,
    maxActive ? { maxActive } : {},
  );
}

beforeAll(async () => {
  harness = await createRunHarness(plannerPolicy);
  desk = planDeskFor(harness);
  dashboard = await openPlanningDashboard(harness, desk);
  ({ server, browser } = dashboard);
});

afterAll(() => dashboard?.close());

afterEach(async () => {
  await page?.close();
  expect(csp, 'CSP violations').toEqual([]);
});

describe('the new-run form', () => {
  it('plans from an idea, asks, shows the spec to edit, and starts a run on it', async () => {
    page = await browser.newPage();
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) csp.push(message.text());
    });
    await page.goto(`${server.url}/`);
    await page.click('nav >> text=New run');
    await page.waitForSelector('#plan-idea');
    expect(new URL(page.url()).pathname).toBe('/new');
    await page.fill('#plan-idea', `A chore list for the household ${XSS}`);
    await page.click('#plan-idea-form button');

    await page.waitForSelector('#plan-questions');
    const labels = await page.locator('#plan-questions label span').allTextContents();
    expect(labels).toEqual([...PLANNER_QUESTIONS]);
    const answers = page.locator('#plan-questions input');
    await answers.nth(0).fill('the three of us at home');
    await answers.nth(1).fill('Bright and cheerful');
    await page.click('#plan-questions button');

    await page.waitForSelector('#plan-spec');
    const spec = await page.inputValue('#plan-spec');
    expect(spec).toContain('Made for: the three of us at home.');
    expect(spec).toContain('Bright and cheerful.');
    expect(spec).toContain(XSS); // model output shown as text, never as markup
    expect(await page.locator('#plan-exchanges li').allTextContents()).toEqual([
      `${PLANNER_QUESTIONS[0]} — the three of us at home`,
      `${PLANNER_QUESTIONS[1]} — Bright and cheerful`,
    ]);
    await page.fill('#plan-spec', `${spec}\nEdited in the browser: a weekly rota.\n`);
    await page.click('#plan-spec-form button[type="submit"]');

    await page.waitForURL(/\/runs\/r-[a-z0-9]+$/);
    const runId = new URL(page.url()).pathname.split('/').at(-1) as string;
    await page.waitForSelector('#run-header .badge');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    const run = await harness.orchestrator.store.getRun(runId);
    expect(run.status).toBe('initializing');
    expect(run.config.models.planner).toBe(SCRIPTED_MODEL);
    const workspace = run.workspace.kind === 'local' ? run.workspace.path : '';
    expect(workspace.startsWith(path.join(harness.dataDir, 'workspaces'))).toBe(true);
    expect(fs.readFileSync(path.join(workspace, 'app_spec.md'), 'utf8')).toContain('a weekly rota');
    const record = fs.readFileSync(path.join(workspace, PLAN_RECORD_FILE), 'utf8');
    expect(record).toContain('Answer: the three of us at home');
    expect(record).toContain('edited by a person before the run: yes');
    const message = await runGit(openRepo(workspace), ['log', '-1', '--format=%B']);
    expect(message).toContain(`> A chore list for the household ${XSS}`);
  }, 120_000);
});

describe('/api/plans', () => {
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('refuses cross-origin requests, bad input and out-of-order steps with clear errors', async () => {
    const crossSite = await post(
      `${server.url}/api/plans`,
      { prompt: 'x' },
      { Origin: 'http://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    const empty = await post(`${server.url}/api/plans`, { prompt: '   ' });
    expect(empty.status).toBe(400);
    expect((await empty.json()).message).toContain('The prompt is empty');
    const unknown = await fetch(`${server.url}/api/plans/p-nope`);
    expect(unknown.status).toBe(404);

    const created = (await (
      await post(`${server.url}/api/plans`, { prompt: 'A todo list.' })
    ).json()) as PlanView;
    let view = created;
    while (view.state === 'planning') {
      view = (await (
        await fetch(`${server.url}/api/plans/${created.id}?after=${view.version}&wait=5000`)
      ).json()) as PlanView;
    }
    expect(view.state).toBe('asking');
    const early = await post(`${server.url}/api/plans/${created.id}/start`, { spec: '# x' });
    expect(early.status).toBe(409);
    const wrongCount = await post(`${server.url}/api/plans/${created.id}/answers`, { answers: ['one'] });
    expect(wrongCount.status).toBe(400);
    const discarded = await post(`${server.url}/api/plans/${created.id}/discard`, {});
    expect(discarded.status).toBe(200);
    expect((await fetch(`${server.url}/api/plans/${created.id}`)).status).toBe(404);
  }, 60_000);

  it('bounds the plans in flight, and says so when no planner is wired', async () => {
    const small = planDeskFor(harness, 1);
    const app = await createDashboardApp({
      store: harness.orchestrator.store,
      dataDir: harness.dataDir,
      planning: small,
    });
    const create = () =>
      app.request('http://127.0.0.1/api/plans', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Host: '127.0.0.1' },
        body: JSON.stringify({ prompt: 'A todo list.' }),
      });
    expect((await create()).status).toBe(201);
    const second = await create();
    expect(second.status).toBe(429);
    expect((await second.json()).message).toContain('plans 1 at once');
    small.close();

    const bare = await createDashboardApp({ store: harness.orchestrator.store, dataDir: harness.dataDir });
    const none = await bare.request('http://127.0.0.1/api/plans', { headers: { Host: '127.0.0.1' } });
    expect(none.status).toBe(404);
    expect((await none.json()).message).toContain('This dashboard cannot plan');
  });
});
