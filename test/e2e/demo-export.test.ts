import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../handoff/app-runner.js';
import { readFeatureList } from '../../handoff/feature-list.js';
import { readVerdicts } from '../../handoff/verdicts.js';
import { linkPlaywright, runPlaywrightTest, type SuiteRun } from '../integration/checks/playwright-suite.js';
import { REDIS_URL } from '../integration/runs/harness.js';
import { createE2eContext, type E2eContext, runCliOnce } from './helpers.js';

// One demo run through the CLI processes, as a user starts it (`nightshift demo --features 5`: the planted bug of
// F-005 and its fix), checked twice over (one run, not two: CI time): what the demo says and leaves behind, then its
// recorded checks exported (`nightshift checks export`) and run from a clean `git clone` of the workspace with the
// real `@playwright/test` runner — green twice in a row on the same app with four parallel workers (in file order,
// then shuffled), red once a feature is broken. F-005 (the remaining count) counts what the whole app holds, so it
// proves the relative count and the @alone turn; F-001–F-004 run side by side on data of their own.
let context: E2eContext;
let env: NodeJS.ProcessEnv;
let home: string;
let result: { code: number; stdout: string; stderr: string };
let clone: string;
const runs: SuiteRun[] = [];

beforeAll(async () => {
  context = createE2eContext('demo');
  home = path.join(context.root, 'home');
  env = {
    ...process.env,
    REDIS_URL,
    NIGHTSHIFT_HOME: home,
    NIGHTSHIFT_KEY_PREFIX: context.prefix,
    NIGHTSHIFT_E2E_MARKER: context.marker,
  };
  delete env.VITEST;
  delete env.NIGHTSHIFT_LOG_LEVEL;
  result = await runCliOnce(['demo', '--features', '5'], env);
}, 600_000);

afterAll(async () => {
  await context?.close();
});

describe('nightshift demo, end to end through the CLI processes', () => {
  it('builds the todo app from spec to done: every feature passed through the evaluator, the planted bug caught', async () => {
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    // Human output only: the log lines went to the data dir.
    const jsonLines = `${result.stdout}\n${result.stderr}`
      .split(/[\r\n]/)
      .filter((line) => line.includes('{"level"'));
    expect(jsonLines, jsonLines.slice(0, 3).join('\n')).toEqual([]);
    expect(fs.readFileSync(path.join(home, 'logs', 'demo.log'), 'utf8')).toMatch(/"level":30/);
    // No URL that dies with the command: the way to open the dashboard on this run instead.
    const runId = /nightshift status (r-[\w-]+)/.exec(result.stdout)?.[1] as string;
    expect(result.stdout).toMatch(new RegExp(`dashboard\\s+nightshift dashboard .*/runs/${runId}`));
    expect(result.stdout).toMatch(/verdicts\s+\d+ evaluations .*regression session re-checks several/);
    // The demo run is an ordinary run afterwards: `runs`, `status` and the dashboard's API show it.
    const runs = await runCliOnce(['runs', '--json'], env);
    expect(JSON.parse(runs.stdout).map((run: { id: string }) => run.id)).toContain(runId);
    const status = await runCliOnce(['status', runId], env);
    expect(status.stdout).toMatch(/status\s+done/);
    expect(status.stdout).toMatch(/last session\s+#\d+ evaluator/);
    await expectDashboardLists(env, runId);
    expect(result.stdout).toMatch(/features\s+5\/5 passed through the browser evaluator/);
    expect(result.stdout).toMatch(/caught bug F-\d{3}/);
    const workspace = /workspace\s+(\S+)/.exec(result.stdout)?.[1] as string;
    expect(fs.existsSync(path.join(workspace, 'feature_list.json'))).toBe(true);

    const features = await readFeatureList(workspace);
    expect(features).toHaveLength(5);
    expect(features.every((feature) => feature.passes)).toBe(true);
    const { records } = await readVerdicts(workspace);
    const failed = records.find((record) => record.verdict === 'fail');
    expect(failed).toBeDefined();
    const later = records.filter(
      (record) => record.featureId === failed?.featureId && record.at > (failed?.at ?? ''),
    );
    expect(later.some((record) => record.verdict === 'pass')).toBe(true);
    // The failed verdict's issue (the scripted evaluator repeats the failing step's evidence as its issue) is
    // said once: in the demo's own output, and in the feedback file the next generator read.
    const issue = failed?.issues[0] as string;
    const times = (text: string) => text.split(issue).length - 1;
    expect(times(`${result.stdout}${result.stderr}`)).toBe(1);
    const feedbackAt = spawnSync(
      'git',
      ['log', '--format=%H', '-1', `--grep=verdict: ${failed?.featureId} fail`],
      { cwd: workspace, encoding: 'utf8' },
    ).stdout.trim();
    const feedback = spawnSync(
      'git',
      ['show', `${feedbackAt}:.nightshift/feedback/${failed?.featureId}.md`],
      { cwd: workspace, encoding: 'utf8' },
    ).stdout;
    expect(feedback).toMatch(/## Failing steps/);
    expect(times(feedback)).toBe(1);

    const log = spawnSync('git', ['log', '--format=%an|%s'], { cwd: workspace, encoding: 'utf8' }).stdout;
    expect(log).toMatch(/nightshift agent\|.*(initial|feature list|init)/i);
    expect(log).toMatch(/nightshift agent\|F-00\d/);
    expect(log).toMatch(/nightshift\|nightshift\(harness\): .*verdict: F-\d{3} fail/);
    expect(log).toMatch(/nightshift\|nightshift\(harness\): .*verdict: .*pass/);

    const app = await serveApp(workspace);
    try {
      const created = await fetch(`${app.url}/api/todos`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'from the e2e test' }),
      });
      expect(created.ok).toBe(true);
      const page = await (await fetch(app.url)).text();
      expect(page).toMatch(/<html/i);
      const listed = await (await fetch(`${app.url}/api/todos`)).text();
      expect(listed).toContain('from the e2e test');
    } finally {
      app.stop();
    }
  }, 300_000);
});

const summary = (run: SuiteRun) => run.output.split('\n').slice(-40).join('\n');

describe('the exported suite under `npx playwright test`, from a clean checkout', () => {
  beforeAll(async () => {
    expect(result.code, result.stderr.slice(-3_000)).toBe(0);
    const runId = /nightshift status (r-[\w-]+)/.exec(result.stdout)?.[1] as string;
    const workspace = /workspace\s+(\S+)/.exec(result.stdout)?.[1] as string;
    const exported = await runCliOnce(['checks', 'export', runId], env);
    expect(exported.code, exported.stderr).toBe(0);
    clone = path.join(context.root, 'clone');
    execFileSync('git', ['clone', '--quiet', workspace, clone]);
    await linkPlaywright(clone);
  }, 120_000);

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
    // Two workers: the green runs above prove four share the app; four on a loaded 2-core CI machine once pushed
    // correct checks past Playwright's 30 s test timeout, which is not what this case is about.
    const run = await runPlaywrightTest(clone, ['--workers', '2']);
    expect(run.code, summary(run)).toBe(1);
    expect(run.failed, summary(run)).toBe(1);
    expect(run.passed, summary(run)).toBe(4);
    expect(run.output).toMatch(/1\) e2e\/F-005\.spec\.ts/);
  }, 300_000);
});

/** `nightshift dashboard` started afterwards lists the run (what its runs page renders). */
async function expectDashboardLists(env: NodeJS.ProcessEnv, runId: string): Promise<void> {
  const child = spawn(process.execPath, ['bin/nightshift.js', 'dashboard', '--port', '0', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const first = await new Promise<string>((resolve) =>
      child.stdout.once('data', (chunk) => resolve(String(chunk))),
    );
    const { url } = JSON.parse(first.split('\n')[0] as string) as { url: string };
    const body = (await (await fetch(`${url}/api/runs`)).json()) as { runs: Array<{ id: string }> };
    expect(body.runs.map((run) => run.id)).toContain(runId);
  } finally {
    child.kill('SIGTERM');
  }
}

/** Starts the built app with its own init.sh on a free port. */
async function serveApp(workspace: string): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child = spawn('bash', ['init.sh'], {
    cwd: workspace,
    env: { ...process.env, PORT: String(port) },
    detached: true,
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url, stop: () => process.kill(-(child.pid as number), 'SIGKILL') };
}
