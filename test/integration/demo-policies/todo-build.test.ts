import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../../handoff/feature-list.js';
import type { VerdictRecord } from '../../../handoff/formats.js';
import { isClean, openRepo } from '../../../handoff/git.js';
import { readVerdicts } from '../../../handoff/verdicts.js';
import type { SessionResult } from '../../../roles/session-result.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { TODO_FEATURES } from '../../../testkit/policies/todo-features.js';
import { TODO_SPEC_PATH } from '../../../testkit/policies/todo-sources.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { callApi, makeWorkspace, removeWorkspace, sessionRunner, startWithInitScript } from './helpers.js';

const CHROMIUM = process.env.NIGHTSHIFT_CHROMIUM ?? '/usr/bin/chromium';

describe('the demo policy builds the todo example through the real role sessions', () => {
  let server: ModelServer;
  let pool: BrowserPool;
  let workspace = '';

  beforeAll(async () => {
    server = await startModelServer({ policy: demoPolicy });
    pool = createBrowserPool({ executablePath: CHROMIUM });
  });

  afterAll(async () => {
    await pool?.close();
    await server?.close();
    if (workspace) removeWorkspace(workspace);
  });

  it('initializes, implements all 8 features, the evaluator catches the planted bug, the fix passes, the app works', async () => {
    const made = await makeWorkspace({ 'app_spec.md': fs.readFileSync(TODO_SPEC_PATH, 'utf8') });
    workspace = made.workspace;
    const run = sessionRunner(server, { ...made, browser: pool });
    const sessions: SessionResult[] = [];
    const record = (result: SessionResult) => {
      sessions.push(result);
      return result;
    };

    const init = record(await run('initializer', []));
    expect(init.outcome, init.reason).toBe('completed');
    const list = await readFeatureList(workspace);
    expect(list.map((feature) => feature.id)).toEqual(TODO_FEATURES.map((_, index) => `F-00${index + 1}`));
    expect(list.every((feature) => !feature.passes)).toBe(true);

    // The planner's path, in list order: generate, evaluate, and on a fail generate again with the feedback.
    for (const feature of list) {
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        const generated = record(await run('generator', [feature.id]));
        expect(generated.outcome, `${feature.id} generator: ${generated.reason}`).toBe('completed');
        expect(generated.commits.length).toBeGreaterThan(0);
        const evaluated = record(await run('evaluator', [feature.id]));
        expect(evaluated.verdicts).toHaveLength(1);
        const verdict = evaluated.verdicts[0] as VerdictRecord;
        expect(verdict.verdict, `${feature.id}: ${JSON.stringify(verdict)}`).not.toBe('blocked');
        if (verdict.verdict === 'pass') break;
      }
    }

    const verdicts = (await readVerdicts(workspace)).records;
    const byFeature = (id: string) => verdicts.filter((v) => v.featureId === id).map((v) => v.verdict);
    expect(byFeature('F-005')).toEqual(['fail', 'pass']);
    for (const id of ['F-001', 'F-002', 'F-003', 'F-004', 'F-006', 'F-007', 'F-008']) {
      expect(byFeature(id), id).toEqual(['pass']);
    }
    const caught = verdicts.find((v) => v.verdict === 'fail') as VerdictRecord;
    const failing = caught.steps.find((step) => !step.ok);
    expect(failing?.step).toMatch(/N\+1 items left/);
    expect(failing?.evidence).toMatch(/status line still says "\d+ items left"; expected "\d+ items? left"/);
    expect(caught.evidence.some((file) => file.endsWith('.png'))).toBe(true);

    // The regression sweep before finishing: every feature again, in one evaluator session.
    const sweep = record(
      await run(
        'evaluator',
        list.map((feature) => feature.id),
        { mode: 'regression' },
      ),
    );
    expect(sweep.verdicts.map((v) => `${v.featureId} ${v.verdict}`)).toEqual(
      list.map((feature) => `${feature.id} pass`),
    );
    expect((await readFeatureList(workspace)).every((feature) => feature.passes)).toBe(true);

    const log = execFileSync('git', ['log', '--format=%s'], { cwd: workspace, encoding: 'utf8' });
    expect(log).toMatch(/^Initializer: feature list \(8 features\)/m);
    expect(log).toMatch(/^F-005: fix count only the todos that are not completed/m);
    expect(log).toMatch(/verdict: F-005 fail/);
    expect(await isClean(openRepo(workspace))).toBe(true);
    const progress = fs.readFileSync(path.join(workspace, 'progress.md'), 'utf8');
    expect(progress).toMatch(/## F-008: clear completed todos/);
    expect(sessions.filter((s) => s.role === 'generator')).toHaveLength(9);

    await expectWorkingApp(workspace);
  }, 300_000);
});

/** The built app, started by its own init.sh: the whole API works and the data survives a restart. */
async function expectWorkingApp(workspace: string): Promise<void> {
  let app = await startWithInitScript(workspace);
  try {
    const page = await fetch(`${app.base}/`).then((res) => res.text());
    expect(page).toContain('<label for="new-todo">New todo</label>');
    expect(page).toContain('role="status"');
    const modules = await fetch(`${app.base}/features.js`).then((res) => res.text());
    expect(modules.match(/^import /gm)).toHaveLength(8);
    const a = (await callApi(app.base, 'POST', '/api/todos', { title: 'final check A' })).body as {
      id: number;
    };
    const b = (await callApi(app.base, 'POST', '/api/todos', { title: 'final check B' })).body as {
      id: number;
    };
    expect((await callApi(app.base, 'POST', '/api/todos', { title: ' ' })).status).toBe(400);
    expect(
      (await callApi(app.base, 'PATCH', `/api/todos/${a.id}`, { title: 'final check A2' })).body,
    ).toMatchObject({
      title: 'final check A2',
    });
    await callApi(app.base, 'PATCH', `/api/todos/${b.id}`, { completed: true });
    const rest = (await callApi(app.base, 'POST', '/api/todos/clear-completed')).body as Array<{
      title: string;
    }>;
    expect(rest.map((todo) => todo.title)).toContain('final check A2');
    expect(rest.map((todo) => todo.title)).not.toContain('final check B');
    expect((await callApi(app.base, 'DELETE', `/api/todos/${b.id}`)).status).toBe(404);
  } finally {
    await app.stop();
  }
  expect(fs.existsSync(path.join(workspace, 'data', 'todos.json'))).toBe(true);
  app = await startWithInitScript(workspace);
  try {
    const todos = (await callApi(app.base, 'GET', '/api/todos')).body as Array<{ title: string }>;
    expect(todos.map((todo) => todo.title)).toContain('final check A2');
  } finally {
    await app.stop();
  }
}
