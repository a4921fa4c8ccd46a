import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeTarget } from '../../../agent/tools/browser-log.js';
import { generateSpec, playwrightConfig, specPath } from '../../../checks/codegen.js';
import { RecordedCheck } from '../../../checks/format.js';
import { buildLocator } from '../../../checks/locator-code.js';
import { recordSegment } from '../../../checks/recorder.js';
import { replayCheck } from '../../../checks/replay.js';
import { writeSpecSupport } from '../../../checks/store.js';
import { assembleDemoApp, type DemoApp, startDemoApp } from './demo-app.js';
import { CHROMIUM, linkPlaywright, runPlaywrightTest } from './playwright-suite.js';

/** The "complete a todo" check as the recorder writes it (stable locators, grounded expectations). */
const completeCheck = RecordedCheck.parse({
  featureId: 'F-003',
  version: 1,
  recordedAt: '2026-01-01T00:00:00.000Z',
  origin: { runId: 'r-test', session: 3, reason: 'evaluate' },
  actions: [
    { kind: 'goto', path: '/' },
    {
      kind: 'fill',
      target: "getByRole('textbox', { name: 'New todo', exact: true })",
      text: 'Pay   the rent',
    },
    { kind: 'press', key: 'Enter', target: "getByRole('textbox', { name: 'New todo', exact: true })" },
    { kind: 'click', target: "getByRole('checkbox', { name: 'Toggle Pay the rent' })" },
    { kind: 'goto', path: '/' },
  ],
  expectations: [
    // Whitespace differs from what was typed: the page collapses it, the match tolerates it.
    { kind: 'text', text: 'Pay  the rent' },
    { kind: 'checked', target: "getByRole('checkbox', { name: 'Toggle Pay the rent' })", checked: true },
    { kind: 'url', path: '/' },
    { kind: 'text', text: 'Nothing like this', visible: false },
  ],
});

describe('replaying a recorded check on the demo app (real Chromium)', () => {
  let browser: Browser;
  const apps: DemoApp[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all(apps.map((app) => app.stop()));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function app(options: Parameters<typeof assembleDemoApp>[0] = {}): Promise<DemoApp> {
    const dir = await assembleDemoApp(options);
    dirs.push(dir);
    const started = await startDemoApp(dir);
    apps.push(started);
    return started;
  }

  it('is green on the finished app', async () => {
    const running = await app();
    const result = await replayCheck(browser, completeCheck, { baseUrl: running.url });
    expect(result.failure).toBeUndefined();
    expect(result).toMatchObject({ ok: true, featureId: 'F-003', version: 1 });
  });

  it('is red on an app without the feature: names the failed step and leaves a screenshot', async () => {
    const running = await app({ features: 2 }); // add and persist only: no checkboxes
    const shots = path.join(running.dir, 'shots');
    const result = await replayCheck(browser, completeCheck, { baseUrl: running.url, screenshotDir: shots });
    expect(result.ok).toBe(false);
    expect(result.failure).toMatchObject({ stage: 'action', index: 3 });
    expect(result.failure?.description).toContain(
      "click getByRole('checkbox', { name: 'Toggle Pay the rent' })",
    );
    expect((await stat(result.screenshot as string)).size).toBeGreaterThan(1000);
  });

  it('is red when an expectation does not hold, naming it', async () => {
    const running = await app();
    const wrong = RecordedCheck.parse({
      ...completeCheck,
      expectations: [...completeCheck.expectations, { kind: 'text', text: '7 items left' }],
    });
    const result = await replayCheck(browser, wrong, { baseUrl: running.url });
    expect(result.failure).toMatchObject({
      stage: 'expectation',
      index: 4,
      description: 'text "7 items left" is visible',
      message: 'no visible element shows this text',
    });
  });

  it('records an exact role name: the check\'s "Add" finds only "Add", not "Add tag"', async () => {
    const page = await browser.newPage();
    try {
      // Recorded while the page has one "Add" button: Playwright's own code for it is not exact.
      await page.setContent('<button>Add</button>');
      const target = await describeTarget(page.getByRole('button'), 'e1', '- button "Add" [ref=e1]');
      expect(target.locator).toBe("getByRole('button', { name: 'Add' })");
      const entry = {
        seq: 1,
        at: '2026-01-01T00:00:00.000Z',
        tool: 'browser_click',
        kind: 'action' as const,
        args: { ref: 'e1' },
        ok: true,
        afterAction: 1,
        url: 'http://127.0.0.1:1/',
        console: [],
        pageErrors: [],
        dialogs: [],
        pageChanged: false,
        target,
      };
      const click = recordSegment([entry], 0, 'http://127.0.0.1:1/').actions[1];
      expect(click).toEqual({ kind: 'click', target: "getByRole('button', { name: 'Add', exact: true })" });
      // Later the page also has an "Add tag" button.
      await page.setContent('<button>Add tag</button><button>Add</button>');
      const recorded = buildLocator(page, click?.kind === 'click' ? click.target : '');
      expect(await recorded.count()).toBe(1);
      expect(await recorded.textContent()).toBe('Add');
      // What the non-exact code would have matched.
      expect(await buildLocator(page, "getByRole('button', { name: 'Add' })").count()).toBe(2);
    } finally {
      await page.close();
    }
  });

  it('generates a spec that passes under `npx playwright test`, and fails when the feature is missing', async () => {
    const run = async (options: Parameters<typeof assembleDemoApp>[0]) => {
      const dir = await assembleDemoApp(options);
      dirs.push(dir);
      await mkdir(path.join(dir, 'e2e'));
      await writeFile(path.join(dir, specPath('F-003')), generateSpec(completeCheck, 'Complete a todo'));
      await writeSpecSupport(dir);
      await writeFile(path.join(dir, 'playwright.config.ts'), playwrightConfig());
      await linkPlaywright(dir);
      return runPlaywrightTest(dir);
    };
    const green = await run({});
    expect(green.output).toContain('1 passed');
    expect(green.code).toBe(0);
    const red = await run({ features: 2 });
    expect(red.code).toBe(1);
    expect(red.output).toContain('1 failed');
  }, 400_000);
});
