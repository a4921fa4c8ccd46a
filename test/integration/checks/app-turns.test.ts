import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SPEC_SUPPORT_PATH, writeSpecSupport } from '../../../checks/store.js';
import { CHROMIUM, linkPlaywright, runPlaywrightTest } from './playwright-suite.js';

// The exported checks' turns on the one app (checks/exported/nightshift-fixtures.ts), under the real
// `npx playwright test` with three workers: a check waiting behind two `@alone` checks is not failed by its
// timeout before it starts (on a loaded machine the wait can outlast the whole timeout), and a check's own body
// still is.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-app-turns-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const HEADER = [
  "import fs from 'node:fs';",
  "import path from 'node:path';",
  "import { test, expect } from './nightshift-fixtures';",
  '',
];

/** An `@alone` check that says it holds the app (a file in the spec folder), then holds it for `ms`. */
function aloneSpec(ms: number): string {
  return [
    ...HEADER,
    "test('holds the app', { tag: '@alone' }, async ({ page }) => {",
    '  test.setTimeout(120_000);',
    "  fs.writeFileSync(path.join(test.info().project.testDir, 'holding'), '');",
    `  await page.waitForTimeout(${ms});`,
    '});',
    '',
  ].join('\n');
}

/** A shared check that asks for its turn once the `@alone` check holds the app, then takes `ms` itself. */
function sharedSpec(title: string, ms: number): string {
  return [
    ...HEADER,
    'test.beforeAll(async ({}, testInfo) => {',
    "  while (!fs.existsSync(path.join(testInfo.project.testDir, 'holding'))) await new Promise((r) => setTimeout(r, 50));",
    '});',
    `test(${JSON.stringify(title)}, async ({ page }) => {`,
    `  await page.waitForTimeout(${ms});`,
    '  expect(1).toBe(1);',
    '});',
    '',
  ].join('\n');
}

describe('exported checks taking turns on the app', () => {
  it('does not count the wait for a turn against a check, but counts its own time', async () => {
    const dir = path.join(root, 'suite');
    fs.mkdirSync(dir, { recursive: true });
    await writeSpecSupport(dir);
    const specs = path.dirname(path.join(dir, SPEC_SUPPORT_PATH));
    // The @alone check holds the app for 20 s; both shared checks, with a 15 s timeout, ask for their turn while it
    // does: the quick one passes, the one whose own body takes 25 s fails on its timeout.
    fs.writeFileSync(path.join(specs, 'a.spec.ts'), aloneSpec(20_000));
    fs.writeFileSync(path.join(specs, 'b.spec.ts'), sharedSpec('quick after waiting', 100));
    fs.writeFileSync(path.join(specs, 'c.spec.ts'), sharedSpec('too slow itself', 25_000));
    fs.writeFileSync(
      path.join(dir, 'playwright.config.ts'),
      [
        "import { defineConfig } from '@playwright/test';",
        `export default defineConfig({ testDir: './${path.basename(specs)}', timeout: 15_000, fullyParallel: true,`,
        `  use: { launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)} } } });`,
        '',
      ].join('\n'),
    );
    await linkPlaywright(dir);
    const suite = await runPlaywrightTest(dir, ['--workers', '3']);
    const output = suite.output.slice(-3_000);
    expect([suite.passed, suite.failed], output).toEqual([2, 1]);
    expect(output).toMatch(/1\) .*too slow itself[\s\S]*Test timeout of \d+ms exceeded\./);
    expect(output).not.toMatch(/while setting up "appTurn"/);
  }, 120_000);
});
