import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardPlanDesk } from '../../../cli/dashboard-planning.js';
import type { ChoiceCheckResponse } from '../../../dashboard/api-types.js';
import type { PlanDesk } from '../../../dashboard/plan-desk.js';
import type { DashboardServer } from '../../../dashboard/server.js';
import { NightshiftConfig } from '../../../orchestrator/config.js';
import { plannerPolicy } from '../../../testkit/policies/planner.js';
import { createRunHarness, type RunHarness, SCRIPTED_MODEL, SCRIPTED_PRICE } from '../runs/harness.js';
import { openPlanningDashboard, type PlanningDashboard } from './planning-dashboard.js';

// The New run page's settings in real Chromium, checked by the server through the CLI's own wiring (the preflight,
// the provider factory, the scripted model over the real Anthropic SDK, real Redis and git): a missing key, a
// retired model and an unknown model show before any idea is typed, and the run starts with the model, budget,
// lanes and workspace chosen there.
let harness: RunHarness;
let desk: PlanDesk;
let server: DashboardServer;
let browser: Browser;
let dashboard: PlanningDashboard;
let page: Page;
const csp: string[] = [];

beforeAll(async () => {
  harness = await createRunHarness(plannerPolicy);
  // Configured for OpenAI, whose key this dashboard's environment lacks; Anthropic's (the scripted server) is there.
  const config = NightshiftConfig.parse({
    dataDir: harness.dataDir,
    run: {
      models: { initializer: 'openai:gpt-5.1', generator: 'openai:gpt-5.1', evaluator: 'openai:gpt-5.1' },
      prices: { [SCRIPTED_MODEL]: SCRIPTED_PRICE },
      sandbox: { bubblewrap: 'off' },
    },
  });
  const env = {
    ANTHROPIC_API_KEY: 'sk-ant-scripted-000000',
    ANTHROPIC_BASE_URL: harness.server.anthropicBaseURL,
  };
  desk = dashboardPlanDesk({ config, orchestrator: harness.orchestrator, dataDir: harness.dataDir }, env);
  dashboard = await openPlanningDashboard(harness, desk);
  ({ server, browser } = dashboard);
});

afterAll(() => dashboard?.close());

afterEach(async () => {
  await page?.close();
  expect(csp, 'CSP violations').toEqual([]);
});

/** Replaces a settings field's text and waits for the server's verdict on the new choice. */
async function choose(selector: string, value: string): Promise<void> {
  const checked = page.waitForResponse((response) => response.url().endsWith('/api/plans/check'));
  await page.fill(selector, value);
  await checked;
  await page.waitForFunction(
    () =>
      document.querySelector('#choice-status')?.textContent !==
      'Checking the model, its key and the workspace…',
  );
}

const problems = () => page.locator('#choice-problems li').allTextContents();

describe('the New run page settings', () => {
  it('show key and model problems before an idea is typed, and start the run as chosen', async () => {
    page = await browser.newPage();
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) csp.push(message.text());
    });
    const firstCheck = page.waitForResponse((response) => response.url().endsWith('/api/plans/check'));
    await page.goto(`${server.url}/new`);
    await firstCheck;
    await page.waitForSelector('#choice-problems li');
    // The configured model's provider has no key here: said at once, and nothing can be planned.
    expect(await problems()).toEqual([
      'openai:gpt-5.1 (initializer, generator, evaluator, planner): OPENAI_API_KEY is not set, and model openai:gpt-5.1 needs it (Export OPENAI_API_KEY (or put it in the environment of the worker), or choose another model)',
    ]);
    expect(await page.inputValue('#plan-idea')).toBe('');
    expect(await page.isDisabled('#plan-idea-form button')).toBe(true);

    await choose('#choice-model', 'anthropic:claude-sonnet-4-5');
    expect(await problems()).toEqual([
      'anthropic:claude-sonnet-4-5 (initializer, generator, evaluator, planner) was retired on 2026-11-30 (its provider no longer answers it): use anthropic:claude-sonnet-5-5 instead (--model anthropic:claude-sonnet-5-5, or run.models in the config)',
    ]);

    // An unknown model: the tiny request the check sends is answered 404, as a provider answers it.
    harness.server.injectFaults([{ kind: 'model_not_found' }]);
    await choose('#choice-model', 'anthropic:claude-sonet-5-5');
    const [unknown] = await problems();
    expect(unknown).toMatch(
      /^anthropic:claude-sonet-5-5 \(initializer, generator, evaluator, planner\): a test request failed: .*404.* \(did you mean "anthropic:claude-sonnet-5-5"\?\)$/,
    );

    await choose('#choice-workspace', 'relative/dir');
    expect(await problems()).toContain(
      'Workspace must be an absolute path on the dashboard\'s machine, not "relative/dir" (e.g. /home/me/apps/todo); leave it empty for a new folder in the data dir.',
    );

    const workspace = path.join(harness.root, 'chosen-workspace');
    await choose('#choice-model', SCRIPTED_MODEL);
    await choose('#choice-budget', '5');
    await choose('#choice-lanes', '2');
    await choose('#choice-workspace', workspace);
    expect(await problems()).toEqual([]);
    expect(await page.locator('#choice-warnings li').allTextContents()).toEqual([
      expect.stringContaining('2 lanes build 2 features at once'),
    ]);
    expect(await page.isDisabled('#plan-idea-form button')).toBe(false);

    await page.fill('#plan-idea', 'A chore list for the household.');
    await page.click('#plan-idea-form button');
    await page.waitForSelector('#plan-questions');
    expect(await page.getAttribute('#choice-model', 'readonly')).not.toBeNull();
    await page.click('#plan-questions button');
    await page.waitForSelector('#plan-spec');
    await page.click('#plan-spec-form button[type="submit"]');
    await page.waitForURL(/\/runs\/r-[a-z0-9]+$/);
    const runId = new URL(page.url()).pathname.split('/').at(-1) as string;

    // The run has the choice, and its name (the spec's title) heads its page and the browser tab.
    await page.waitForSelector('#run-header h1');
    expect(await page.textContent('#run-header h1')).toBe('Todo list');
    expect(await page.title()).toMatch(/^Todo list · /);
    const run = await harness.orchestrator.store.getRun(runId);
    expect(run.name).toBe('Todo list');
    expect(run.config.models).toEqual({
      initializer: SCRIPTED_MODEL,
      generator: SCRIPTED_MODEL,
      evaluator: SCRIPTED_MODEL,
      planner: SCRIPTED_MODEL,
    });
    expect(run.config.budgets.maxCostUsd).toBe(5);
    expect(run.config.lanes).toBe(2);
    expect(run.workspace).toEqual({ kind: 'local', path: workspace });
    expect(fs.existsSync(path.join(workspace, 'app_spec.md'))).toBe(true);

    // The runs list calls it by its name too.
    await page.goto(`${server.url}/`);
    await page.waitForSelector(`tr[data-run="${runId}"] .run-link`);
    expect(await page.textContent(`tr[data-run="${runId}"] .run-link`)).toBe('Todo list');
  }, 180_000);
});

describe('POST /api/plans/check', () => {
  const check = async (body: unknown): Promise<ChoiceCheckResponse> =>
    (await fetch(`${server.url}/api/plans/check`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then((response) => response.json())) as ChoiceCheckResponse;

  it('names each bad field for a person, and refuses to plan with a choice that would not run', async () => {
    const bad = await check({ model: 'anthropic:scripted', budgetUsd: -3, lanes: 99, workspace: null });
    expect(bad).toEqual({
      ok: false,
      problems: [
        { field: 'budgetUsd', message: 'Budget: must be a positive number, not -3' },
        { field: 'lanes', message: 'Lanes: must be at most 8, not 99' },
      ],
      warnings: [],
    });
    const busy = path.join(harness.root, 'chosen-workspace');
    const taken = await check({ model: 'anthropic:scripted', budgetUsd: 5, lanes: 1, workspace: busy });
    expect(taken.problems).toEqual([
      {
        field: 'workspace',
        message: expect.stringMatching(/already holds a feature list|has an open run: r-/),
      },
    ]);
    const refused = await fetch(`${server.url}/api/plans`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        prompt: 'A todo list.',
        choice: { model: 'openai:gpt-5.1', budgetUsd: 5, lanes: 1, workspace: null },
      }),
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).message).toContain('OPENAI_API_KEY is not set');
  });
});
