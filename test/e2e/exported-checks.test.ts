import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkPlaywright, runPlaywrightTest, type SuiteRun } from '../integration/checks/playwright-suite.js';
import { REDIS_URL } from '../integration/runs/harness.js';
import { createE2eContext, type E2eContext, runCliOnce } from './helpers.js';

// The recorded checks of a real demo run (CLI processes: `nightshift demo`, then `nightshift checks export`),
// run from a clean `git clone` of the workspace with the real `@playwright/test` runner, as a user would: green
// twice in a row on the same app with four parallel workers (in file order, then shuffled), red once a
// feature is broken. Five features: the remaining count (F-005) counts what the whole app holds, so it proves
// the relative count and the @alone turn; F-001–F-004 run side by side on data of their own.
let context: E2eContext;
let clone: string;
const runs: SuiteRun[] = [];

beforeAll(async () => {
  context = createE2eContext('export');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL,
    NIGHTSHIFT_HOME: path.join(context.root, 'home'),
    NIGHTSHIFT_KEY_PREFIX: context.prefix,
    NIGHTSHIFT_E2E_MARKER: context.marker,
  };
  delete env.VITEST;
  const demo = await runCliOnce(['demo', '--features', '5'], env);
  expect(demo.code, demo.stderr.slice(-3_000)).toBe(0);
  const runId = /nightshift status (r-[\w-]+)/.exec(demo.stdout)?.[1] as string;
  const workspace = /workspace\s+(\S+)/.exec(demo.stdout)?.[1] as string;
  const exported = await runCliOnce(['checks', 'export', runId], env);
  expect(exported.code, exported.stderr).toBe(0);
  clone = path.join(context.root, 'clone');
  execFileSync('git', ['clone', '--quiet', workspace, clone]);
  await linkPlaywright(clone);
}, 400_000);

afterAll(async () => {
  await context?.close();
});

const summary = (run: SuiteRun) => run.output.split('\n').slice(-40).join('\n');

describe('the exported suite under `npx playwright test`, from a clean checkout', () => {
  it('holds the checks as recorded: counts relative, own data made at run time, the count check alone', () => {
    const spec = fs.readFileSync(path.join(clone, 'e2e/F-005.spec.ts'), 'utf8');
    expect(spec).toContain("{ tag: '@alone' }");
    expect(spec).toMatch(/const counted\d+ = await numbersShown\(page, new RegExp\(/);
    expect(spec).not.toMatch(/getByText\('\d+ items? left'\)/);
    expect(fs.readFileSync(path.join(clone, 'e2e/F-001.spec.ts'), 'utf8')).toContain(
      'const run = runSuffix();',
    );
    expect(fs.existsSync(path.join(clone, 'e2e/nightshift-fixtures.ts'))).toBe(true);
  });

  // Twice, not three times: the second run already meets an app the first one used, in another order (CI time).
  it('is green twice in a row with four workers, in file order and shuffled', async () => {
    for (const args of [[], ['--shuffle']]) {
      const run = await runPlaywrightTest(clone, ['--workers', '4', ...args]);
      runs.push(run);
      expect(run.code, summary(run)).toBe(0);
      expect(run.passed, summary(run)).toBe(5);
    }
    // The app kept every run's data: the later runs met an app others had used.
    const todos = JSON.parse(fs.readFileSync(path.join(clone, 'data/todos.json'), 'utf8')) as unknown[];
    // Each run leaves 7 todos (F-001 two, F-002 and F-003 one, F-004 one of its two, F-005 two).
    expect(todos.length).toBe(2 * 7);
  }, 600_000);

  it('is red on a broken feature: the remaining count counts completed todos again', async () => {
    const file = path.join(clone, 'public/features/remaining-count.js');
    const fixed = 'const left = state.todos.filter((todo) => !todo.completed).length;';
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain(fixed);
    fs.writeFileSync(file, text.replace(fixed, 'const left = state.todos.length;'));
    const run = await runPlaywrightTest(clone, ['--workers', '4']);
    expect(run.code, summary(run)).toBe(1);
    expect(run.failed, summary(run)).toBe(1);
    expect(run.passed, summary(run)).toBe(4);
    expect(run.output).toMatch(/1\) e2e\/F-005\.spec\.ts/);
  }, 300_000);
});
