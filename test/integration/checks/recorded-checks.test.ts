import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specPath } from '../../../checks/codegen.js';
import { checkFilePath, readCheckFile, readReplays } from '../../../checks/store.js';
import { checksView } from '../../../dashboard/checks-view.js';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { checkpoint, openRepo, runGit } from '../../../handoff/git.js';
import { readVerdicts } from '../../../handoff/verdicts.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import type { HarnessNotice } from '../../../roles/types.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { removeWorkspace, runSession } from '../roles/role-helpers.js';
import { demoWorkspace } from './demo-app.js';

describe('recorded checks: recorded on a pass, replayed first in regression checks (demo app, real Chromium)', () => {
  let server: ModelServer;
  let browser: BrowserPool;
  let workspace: string;
  let dataDir: string;
  let session = 0;

  beforeAll(async () => {
    server = await startModelServer({ policy: demoPolicy });
    browser = createBrowserPool();
    ({ workspace, dataDir } = await demoWorkspace());
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (workspace) removeWorkspace(workspace);
  });

  const evaluate = async (mode: 'evaluate' | 'regression') => {
    session += 1;
    const before = server.requests.length;
    const notices: HarnessNotice[] = [];
    const result = await runSession(server, {
      role: 'evaluator',
      workspace,
      dataDir,
      featureIds: ['F-001'],
      mode,
      session,
      browser,
      limits: { maxSteps: 40, maxMinutes: 4 },
      onNotice: (notice) => notices.push(notice),
    });
    // What the worker logs for the replay metrics: each batch, where it ran, which checks held.
    const replays = notices.flatMap((notice) =>
      notice.type === 'check.replayed' ? [[notice.where, notice.passed, notice.failed]] : [],
    );
    return { result, modelRequests: server.requests.length - before, verdict: result.verdicts[0], replays };
  };

  const commitChange = async (file: string, from: string, to: string, summary: string) => {
    const target = path.join(workspace, file);
    const text = await readFile(target, 'utf8');
    expect(text).toContain(from);
    await writeFile(target, text.replace(from, to));
    await checkpoint(openRepo(workspace), { role: 'generator', runId: 'r-test', session: 0, summary });
  };

  it('a pass leaves a committed check with stable locators that replayed green on a fresh app', async () => {
    const { verdict, modelRequests, result, replays } = await evaluate('evaluate');
    expect(verdict?.verdict, `${result.reason} ${JSON.stringify(await readReplays(dataDir, 'r-test'))}`).toBe(
      'pass',
    );
    expect(modelRequests).toBeGreaterThan(0);
    expect(replays).toEqual([['gate', ['F-001'], []]]);
    const file = await readCheckFile(workspace, 'F-001');
    expect(file?.current).toMatchObject({ featureId: 'F-001', version: 1, origin: { reason: 'evaluate' } });
    expect(file?.history).toEqual([]);
    const json = JSON.stringify(file);
    expect(json).not.toMatch(/\be\d+\b|aria-ref|getByRef/);
    expect(file?.current.actions).toContainEqual(
      expect.objectContaining({
        kind: 'fill',
        target: "getByRole('textbox', { name: 'New todo', exact: true })",
      }),
    );
    expect(file?.current.expectations).toContainEqual({ kind: 'text', text: 'Add', visible: true });
    // Committed by the harness with the verdict: nothing left over in the tree.
    const tracked = await runGit(openRepo(workspace), [
      'ls-files',
      checkFilePath('F-001'),
      specPath('F-001'),
    ]);
    expect(tracked.trim().split('\n')).toEqual([checkFilePath('F-001'), specPath('F-001')]);
    expect((await runGit(openRepo(workspace), ['status', '--porcelain'])).trim()).toBe('');
    expect(await readReplays(dataDir, 'r-test')).toMatchObject({
      'F-001': { ok: true, by: 'gate', version: 1 },
    });
    // The dashboard's view of it (GET /api/runs/:id/checks).
    const run = { id: 'r-test', workspace: { kind: 'local', path: workspace } } as RunRecord;
    const view = await checksView(run, dataDir);
    expect(view.checks.find((item) => item.featureId === 'F-001')).toMatchObject({
      check: { version: 1, reason: 'evaluate', flaky: null, previousVersions: [] },
      lastReplay: { ok: true, by: 'gate' },
    });
    expect(view.checks.find((item) => item.featureId === 'F-002')).toEqual({
      featureId: 'F-002',
      check: null,
      lastReplay: null,
      screenshotUrl: null,
    });
  });

  it('a regression check replays the check green with zero model requests', async () => {
    const { verdict, modelRequests, result, replays } = await evaluate('regression');
    expect(modelRequests).toBe(0);
    expect(replays).toEqual([['sweep', ['F-001'], []]]);
    expect(result.costUsd === null || result.costUsd === 0).toBe(true);
    expect(verdict).toMatchObject({ verdict: 'pass', mode: 'regression' });
    expect(verdict?.steps[0]?.evidence).toContain('no model request');
  });

  it('a generator that breaks the feature is caught by the replay and confirmed by the evaluator, naming the failed expectation', async () => {
    await commitChange(
      'api/todos.js',
      'createTodo(title)',
      'createTodo(title.slice(0, 5))',
      'F-001 shorter titles',
    );
    const { verdict, modelRequests, replays } = await evaluate('regression');
    expect(modelRequests).toBeGreaterThan(0); // the red check went to the evaluator
    expect(replays).toEqual([['sweep', [], ['F-001']]]);
    expect(verdict?.verdict).toBe('fail');
    expect(verdict?.issues[0]).toMatch(
      /^The recorded check v1 failed at expectation \d+: text ".+" is visible/,
    );
    expect((await readFeatureList(workspace)).find((f) => f.id === 'F-001')?.passes).toBe(false);
    expect(await readFile(path.join(workspace, '.nightshift/feedback/F-001.md'), 'utf8')).toContain(
      'recorded check v1 failed',
    );
    expect((await readReplays(dataDir, 'r-test'))['F-001']).toMatchObject({ ok: false, by: 'sweep' });
    // The fix: the replay is green again, without the model.
    await commitChange('api/todos.js', 'createTodo(title.slice(0, 5))', 'createTodo(title)', 'F-001 fixed');
    const fixed = await evaluate('regression');
    expect(fixed.modelRequests).toBe(0);
    expect(fixed.verdict?.verdict).toBe('pass');
  });

  it('a UI change that keeps the feature working is re-recorded, both versions kept', async () => {
    await commitChange(
      'public/index.html',
      '<button type="submit">Add</button>',
      '<button type="submit" aria-label="Add">+</button>',
      'icon button',
    );
    const { verdict, modelRequests } = await evaluate('regression');
    expect(modelRequests).toBeGreaterThan(0);
    expect(verdict?.verdict).toBe('pass');
    const file = await readCheckFile(workspace, 'F-001');
    expect(file?.current).toMatchObject({ version: 2, origin: { reason: 'rerecord' } });
    expect(file?.history.map((check) => check.version)).toEqual([1]);
    expect(file?.current.expectations).not.toContainEqual({ kind: 'text', text: 'Add', visible: true });
    const again = await evaluate('regression');
    expect(again.modelRequests).toBe(0);
    expect(again.verdict?.verdict).toBe('pass');
    const { records } = await readVerdicts(workspace);
    expect(records.map((record) => record.verdict)).toEqual(['pass', 'pass', 'fail', 'pass', 'pass', 'pass']);
  });
});
