import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCheck } from '../../../checks/format.js';
import type { ReplayResult } from '../../../checks/replay.js';
import { readReplays } from '../../../checks/store.js';
import type { BrowserSource } from '../../../evaluation/browser-source.js';
import { replayOnOneApp } from '../../../evaluation/check-sweep.js';
import { keptReplayContexts } from '../../../evaluation/kept-replay-contexts.js';
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
  recordedCheck(featureId, input, { runId: 'r-parallel', reason: 'evaluate' });

/** A page of the app's own that keeps a note in the context's local storage and shows what it finds there. */
const NOTE_PAGE = `<!doctype html><title>Note</title><p id="n">…</p>
<script>
if (location.search === '?keep') localStorage.setItem('note', 'kept');
document.getElementById('n').textContent = 'note=' + (localStorage.getItem('note') ?? 'none');
</script>`;

const addCheck = (featureId: string) =>
  check(featureId, {
    actions: [{ kind: 'goto', path: '/' }, ...add('Buy milk')],
    expectations: [{ kind: 'text', text: 'Buy milk' }],
  });
/** Ticks its todo and reloads: red when the app does not keep the tick. */
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
/** Leaves a note in its context's storage. */
const keepNote = (featureId: string) =>
  check(featureId, {
    actions: [
      { kind: 'goto', path: '/note.html?keep' },
      { kind: 'goto', path: '/note.html' },
    ],
    expectations: [{ kind: 'text', text: 'note=kept' }],
  });
/** Finds no note: what another replay kept, in its context or in an earlier check of this one, never shows. */
const findNoNote = (featureId: string) =>
  check(featureId, {
    actions: [{ kind: 'goto', path: '/note.html' }],
    expectations: [{ kind: 'text', text: 'note=none' }],
  });

/** The pool, counting the contexts it hands out and how many are open at once. */
function counting(pool: BrowserPool) {
  const seen = { acquired: 0, open: 0, mostOpen: 0 };
  const source: BrowserSource = {
    async acquireContext(options) {
      const context = await pool.acquireContext(options);
      seen.acquired += 1;
      seen.open += 1;
      seen.mostOpen = Math.max(seen.mostOpen, seen.open);
      return {
        ...context,
        allowOrigin: (origin) => context.allowOrigin(origin),
        close: () => {
          seen.open -= 1;
          return context.close();
        },
      };
    },
  };
  return { source, seen };
}

describe('a sweep replays side by side in two contexts of one app (demo app, real Chromium)', () => {
  let pool: BrowserPool;
  let workspace: string;
  let dataDir: string;
  let session = 0;

  beforeAll(async () => {
    pool = createBrowserPool();
    const built = await assembleDemoApp();
    const files: Record<string, string> = { '.gitignore': 'data/\n', 'public/note.html': NOTE_PAGE };
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
    const input = {
      runId: 'r-parallel',
      session,
      dataDir,
      sandbox: { sandbox: 'none' as const },
      replayContexts: 2,
    };
    const { source, seen } = counting(pool);
    const results = await replayOnOneApp(input, openRepo(workspace), source, checks);
    return { results, seen, source, of: (id: string) => results.get(id) as ReplayResult };
  };
  // Notes kept and looked for in turn: with two contexts at once, each looks while the other context keeps one.
  const checks = [
    addCheck('F-001'),
    completeCheck('F-002'),
    keepNote('F-003'),
    findNoNote('F-004'),
    keepNote('F-005'),
    findNoNote('F-006'),
    completeCheck('F-007'),
    findNoNote('F-008'),
  ];

  it('every check green on the shared app, in two contexts open at once, no storage of one seen in the other', async () => {
    const { results, seen, source, of } = await sweep(checks);
    expect(results.size).toBe(checks.length);
    for (const { featureId } of checks) {
      expect(of(featureId), `${featureId}: ${JSON.stringify(of(featureId).failure)}`).toMatchObject({
        ok: true,
      });
      expect(of(featureId).ownApp).toBeUndefined();
    }
    // Both contexts wait, on a blank page, for the next app's replays; closed when asked (or after a minute unused).
    expect(seen).toMatchObject({ acquired: 2, mostOpen: 2, open: 2 });
    await keptReplayContexts(source).closeIdle();
    expect(seen.open).toBe(0);
    const kept = await readReplays(dataDir, 'r-parallel');
    expect(Object.keys(kept).sort()).toEqual(checks.map((c) => c.featureId).sort());
  }, 120_000);

  it('a broken feature is red, on the shared app and again on an app of its own; the others stay green', async () => {
    const file = path.join(workspace, 'api/update-todo.js');
    const keeps = 'if (body.completed !== undefined) todo.completed = body.completed;';
    const text = await readFile(file, 'utf8');
    expect(text).toContain(keeps);
    await writeFile(file, text.replace(keeps, ''));
    await checkpoint(openRepo(workspace), {
      role: 'generator',
      runId: 'r-parallel',
      session: 9,
      summary: 'bug',
    });

    const { of } = await sweep(checks);
    for (const id of ['F-002', 'F-007']) {
      expect(of(id)).toMatchObject({
        ok: false,
        ownApp: true,
        failure: { stage: 'expectation', index: 0 },
      });
    }
    for (const id of ['F-001', 'F-003', 'F-004', 'F-005', 'F-006', 'F-008'])
      expect(of(id), `${id}: ${JSON.stringify(of(id).failure)}`).toMatchObject({ ok: true });
  }, 120_000);
});
