import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCheck } from '../../../checks/format.js';
import type { ReplayResult } from '../../../checks/replay.js';
import { readReplays } from '../../../checks/store.js';
import { replayOnOneApp } from '../../../evaluation/check-sweep.js';
import { checkpoint, openRepo } from '../../../handoff/git.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { recordedCheck } from '../checks/check-builder.js';
import { assembleDemoApp } from '../checks/demo-app.js';
import { makeWorkspace, removeWorkspace } from '../roles/role-helpers.js';

const TEXTBOX = "getByRole('textbox', { name: 'New todo', exact: true })";
const add = (title: string) => [
  { kind: 'fill' as const, target: TEXTBOX, text: title },
  { kind: 'press' as const, key: 'Enter', target: TEXTBOX },
];
const toggle = (title: string) => `getByRole('checkbox', { name: 'Toggle ${title}', exact: true })`;

const check = (featureId: string, input: Parameters<typeof recordedCheck>[1]) =>
  recordedCheck(featureId, input, { runId: 'r-sweep', reason: 'evaluate' });

/** Adds a todo: leaves one more active todo in the app. */
const addCheck = check('F-001', {
  actions: [{ kind: 'goto', path: '/' }, ...add('Buy milk')],
  expectations: [{ kind: 'text', text: 'Buy milk' }],
});
/** Ticks its todo and reloads: twice on one app, the same title would be there twice. */
const completeCheck = (featureId: string) =>
  check(featureId, {
    actions: [
      { kind: 'goto', path: '/' },
      ...add('Pay the rent'),
      { kind: 'click', target: toggle('Pay the rent') },
      { kind: 'goto', path: '/' },
    ],
    expectations: [{ kind: 'checked', target: toggle('Pay the rent'), checked: true }],
  });
/** Expects the whole app's count, as recorded on a fresh app: holds on a clean app only. */
const remainingCheck = check('F-005', {
  actions: [
    { kind: 'goto', path: '/' },
    ...add('Book dentist'),
    ...add('Renew passport'),
    { kind: 'click', target: toggle('Book dentist') },
  ],
  expectations: [{ kind: 'text', text: '1 item left' }],
});

describe('a sweep replays every check on one shared app (demo app, real Chromium)', () => {
  let pool: BrowserPool;
  let workspace: string;
  let dataDir: string;
  let session = 0;

  beforeAll(async () => {
    pool = createBrowserPool();
    const built = await assembleDemoApp();
    const files: Record<string, string> = { '.gitignore': 'data/\n' };
    for (const entry of await readdir(built, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      files[path.relative(built, full)] = await readFile(full, 'utf8');
    }
    ({ workspace, dataDir } = await makeWorkspace(files));
  });
  afterAll(async () => {
    await pool?.close();
    if (workspace) removeWorkspace(workspace);
  });

  const sweep = async (checks: RecordedCheck[]) => {
    session += 1;
    const input = { runId: 'r-sweep', session, dataDir, sandbox: { sandbox: 'none' as const } };
    const results = await replayOnOneApp(input, openRepo(workspace), pool, checks);
    const of = (id: string) => results.get(id) as ReplayResult;
    return { results, of };
  };
  const checks = [addCheck, completeCheck('F-003'), completeCheck('F-004'), remainingCheck];

  it('checks typing the same data do not see each other; a check of the whole app state learns to go first', async () => {
    const first = await sweep(checks);
    for (const id of ['F-001', 'F-003', 'F-004'])
      expect(first.of(id), `${id}: ${JSON.stringify(first.of(id).failure)}`).toMatchObject({ ok: true });
    for (const id of ['F-001', 'F-003', 'F-004']) expect(first.of(id).ownApp).toBeUndefined();
    // "1 item left" after F-001 and F-003/F-004 left todos: red on the shared app, green on an app of its own.
    expect(first.of('F-005')).toMatchObject({ ok: true, ownApp: true });
    expect((await readReplays(dataDir, 'r-sweep'))['F-005']).toMatchObject({ ok: true, needsCleanApp: true });

    const second = await sweep(checks);
    expect([...second.results.keys()][0]).toBe('F-005');
    for (const result of second.results.values()) {
      expect(result, JSON.stringify(result.failure)).toMatchObject({ ok: true });
      expect(result.ownApp).toBeUndefined();
    }
    expect((await readReplays(dataDir, 'r-sweep'))['F-005']?.needsCleanApp).toBe(true);
  }, 120_000);

  it('replays a broken feature red on the shared app and again on an app of its own', async () => {
    const file = path.join(workspace, 'public/features/remaining-count.js');
    const fixed = 'const left = state.todos.filter((todo) => !todo.completed).length;';
    const text = await readFile(file, 'utf8');
    expect(text).toContain(fixed);
    await writeFile(file, text.replace(fixed, 'const left = state.todos.length;'));
    await checkpoint(openRepo(workspace), {
      role: 'generator',
      runId: 'r-sweep',
      session: 9,
      summary: 'bug',
    });

    const broken = await sweep(checks);
    expect(broken.of('F-005')).toMatchObject({
      ok: false,
      ownApp: true,
      failure: { stage: 'expectation', index: 0, description: 'text "1 item left" is visible' },
    });
    for (const id of ['F-001', 'F-003', 'F-004']) expect(broken.of(id)).toMatchObject({ ok: true });
  }, 120_000);
});
