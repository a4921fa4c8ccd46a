import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specPath } from '../../../checks/codegen.js';
import { RecordedCheck } from '../../../checks/format.js';
import { writeCheck } from '../../../checks/store.js';
import { CheckRunReport } from '../../../cli/checks.js';
import { checkpoint, ensureRepo, openRepo, runGit } from '../../../handoff/git.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import { assembleDemoApp } from '../checks/demo-app.js';
import { connect, newRun } from '../orchestrator/redis-helpers.js';
import { cliEnv, deleteKeys, runCli, tempDir, uniquePrefix } from './helpers.js';

// `nightshift checks run|export` as real child processes (bin/nightshift.js) against real Redis, a run whose
// local workspace is the finished demo app with two committed recorded checks, and real Chromium. Each call
// starts a CLI, a browser and the app: generous timeouts for a loaded machine, nothing timed is asserted.
const SLOW = 180_000;
const TEXTBOX = "getByRole('textbox', { name: 'New todo', exact: true })";

function addTodoCheck(featureId: string, title: string, expected = title, version = 1): RecordedCheck {
  return RecordedCheck.parse({
    featureId,
    version,
    recordedAt: '2026-01-01T00:00:00.000Z',
    origin: { runId: 'r-checks', session: 2, reason: 'evaluate' },
    actions: [
      { kind: 'goto', path: '/' },
      { kind: 'fill', target: TEXTBOX, text: title },
      { kind: 'press', key: 'Enter', target: TEXTBOX },
    ],
    expectations: [{ kind: 'text', text: expected, visible: true }],
  });
}

let redis: Redis;
let store: RunStore;
let prefix: string;
let home: string;
let env: NodeJS.ProcessEnv;
let workspace: string;

const cli = (args: string[]) => runCli(args, { env, cwd: home });
const commit = (summary: string) =>
  checkpoint(openRepo(workspace), { role: 'harness', runId: 'r-checks', session: 3, summary });

beforeAll(async () => {
  redis = connect();
  prefix = uniquePrefix();
  home = tempDir('checks-cli');
  env = cliEnv(home, prefix);
  workspace = await assembleDemoApp({}, path.join(home, 'ws'));
  const listPath = path.join(workspace, 'feature_list.json');
  const features = JSON.parse(fs.readFileSync(listPath, 'utf8')) as Array<Record<string, unknown>>;
  const withIds = features.map((feature, index) => ({ id: `F-00${index + 1}`, ...feature }));
  fs.writeFileSync(listPath, `${JSON.stringify(withIds, null, 2)}\n`);
  fs.writeFileSync(path.join(workspace, '.gitignore'), 'data/\n');
  await ensureRepo(workspace);
  for (const [id, title] of [
    ['F-001', 'Buy milk'],
    ['F-002', 'Walk the dog'],
  ] as const) {
    await writeCheck(workspace, addTodoCheck(id, title), { title: `${id} adds a todo`, flaky: null });
  }
  await commit('demo app with two recorded checks');
  store = new RunStore(redis, { prefix });
  const run = newRun({ sandbox: { bubblewrap: 'off', network: false } }, 'r-checks');
  await store.createRun({ ...run, workspace: { kind: 'local', path: workspace } });
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  await store?.close();
  redis?.disconnect();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('nightshift checks (child processes, real Chromium)', () => {
  it(
    'checks run --json: exit 0 when every check is green, one schema-valid document',
    async () => {
      const out = await cli(['checks', 'run', 'r-checks', '--json']);
      expect(out.code, out.stderr).toBe(0);
      const report = CheckRunReport.parse(JSON.parse(out.stdout));
      expect(report).toMatchObject({ runId: 'r-checks', green: 2, red: 0 });
      expect(report.results.map((row) => [row.featureId, row.version, row.ok])).toEqual([
        ['F-001', 1, true],
        ['F-002', 1, true],
      ]);
    },
    SLOW,
  );

  it(
    'checks run: exit 1 when one is red, a table naming the failed expectation',
    async () => {
      await writeCheck(workspace, addTodoCheck('F-002', 'Walk the dog', 'Walk the cat', 2), {
        title: 'F-002 adds a todo',
        flaky: null,
      });
      await commit('F-002 expects a text the app never shows');
      const out = await cli(['checks', 'run', 'r-checks']);
      expect(out.code, out.stderr).toBe(1);
      const lines = out.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^FEATURE\s+CHECK\s+RESULT\s+TIME\s+FAILURE$/);
      expect(lines[1]).toMatch(/^F-001\s+v1\s+green\s+\d+ ms$/);
      expect(lines[2]).toMatch(
        /^F-002\s+v2\s+RED\s+\d+ ms {2}expectation 1: text "Walk the cat" is visible \(no visible element shows this text\)$/,
      );
      expect(lines.at(-1)).toBe('1 green, 1 red (no model requests)');
    },
    SLOW,
  );

  it(
    'checks export writes the specs and a playwright config a person can read, committed',
    async () => {
      fs.rmSync(path.join(workspace, specPath('F-001')));
      const out = await cli(['checks', 'export', 'r-checks']);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain('npx playwright test');
      const spec = fs.readFileSync(path.join(workspace, specPath('F-001')), 'utf8');
      expect(spec).toContain("import { expect, settled, test } from './nightshift-fixtures';");
      expect(spec).toContain("test('F-001: ");
      // The check's own data gets a suffix of each run: parallel workers and repeated runs never see each other's.
      expect(spec).toContain(`await page.${TEXTBOX}.fill('Buy milk ' + run);`);
      expect(spec).toContain(
        "await expect(page.getByText('Buy milk ' + run).filter({ visible: true }).first()).toBeVisible();",
      );
      const config = fs.readFileSync(path.join(workspace, 'playwright.config.ts'), 'utf8');
      expect(config).toContain("testDir: './e2e'");
      expect(config).toMatch(/webServer:[\s\S]*init\.sh/);
      const repo = openRepo(workspace);
      expect((await runGit(repo, ['status', '--porcelain'])).trim()).toBe('');
      const tracked = await runGit(repo, ['ls-files', 'playwright.config.ts', 'e2e']);
      expect(tracked.trim().split('\n')).toEqual([
        'e2e/F-001.spec.ts',
        'e2e/F-002.spec.ts',
        'e2e/nightshift-fixtures.ts',
        'playwright.config.ts',
      ]);
    },
    SLOW,
  );
});
