import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckExpectation, RecordedCheck } from '../../../checks/format.js';
import { replayCheck } from '../../../checks/replay.js';
import { readCheckFile } from '../../../checks/store.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { removeWorkspace, runSession } from '../roles/role-helpers.js';
import { type DemoApp, demoWorkspace, startDemoApp } from './demo-app.js';
import { CHROMIUM } from './playwright-suite.js';

// A recorded check holds on any correct app, whatever other checks or sessions left in it: a real scripted
// evaluation of the remaining count (F-005) on the demo app records its count relative to what it saw itself,
// and that check replays green on an app full of other todos, where the same count as an absolute text is red.
describe('checks that travel (demo app, real Chromium, scripted evaluator)', () => {
  let server: ModelServer;
  let pool: BrowserPool;
  let browser: Browser;
  let workspace: string;
  let dataDir: string;
  const apps: DemoApp[] = [];

  beforeAll(async () => {
    server = await startModelServer({ policy: demoPolicy });
    pool = createBrowserPool();
    browser = await chromium.launch({ executablePath: CHROMIUM });
    ({ workspace, dataDir } = await demoWorkspace());
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await browser?.close();
    await pool?.close();
    await server?.close();
    if (workspace) removeWorkspace(workspace);
  });

  /** The workspace's app, started afresh with todos other checks left: three, one of them completed. */
  async function usedApp(): Promise<DemoApp> {
    await Promise.all(apps.splice(0).map((app) => app.stop()));
    await rm(path.join(workspace, 'data'), { recursive: true, force: true });
    const app = await startDemoApp(workspace);
    apps.push(app);
    const api = (method: string, route: string, body?: unknown) =>
      fetch(new URL(route, app.url), {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }).then((response) => response.json() as Promise<{ id: string }>);
    for (const title of ['Left by F-001', 'Left by F-003', 'Left by a session']) {
      await api('POST', '/api/todos', { title });
    }
    const [first] = (await api('GET', '/api/todos')) as unknown as Array<{ id: string }>;
    await api('PATCH', `/api/todos/${first?.id}`, { completed: true });
    return app;
  }

  it('records the remaining count relative to what the check saw, and replays it on an app others used', async () => {
    const result = await runSession(server, {
      role: 'evaluator',
      workspace,
      dataDir,
      featureIds: ['F-005'],
      browser: pool,
      limits: { maxSteps: 40, maxMinutes: 4 },
    });
    expect(result.verdicts[0]?.verdict, result.reason).toBe('pass');
    const check = (await readCheckFile(workspace, 'F-005'))?.current as RecordedCheck;
    const counted = check.expectations.find((expectation) => expectation.kind === 'relativeText');
    expect(counted).toEqual({
      kind: 'relativeText',
      text: '1 item left',
      baseline: { afterAction: 0, text: '0 items left' },
    });
    expect(check.expectations).not.toContainEqual(
      expect.objectContaining({ kind: 'text', text: '1 item left' }),
    );

    // Another app's data: 2 active todos before the check adds its own two and ticks one.
    const used = await usedApp();
    const travelled = await replayCheck(browser, check, { baseUrl: used.url });
    expect(travelled, JSON.stringify(travelled.failure)).toMatchObject({ ok: true });
    const absolute = RecordedCheck.parse({
      ...check,
      expectations: check.expectations.map(
        (expectation): CheckExpectation =>
          expectation.kind === 'relativeText'
            ? { kind: 'text', text: expectation.text, visible: true }
            : expectation,
      ),
    });
    const stuck = await replayCheck(browser, absolute, { baseUrl: (await usedApp()).url });
    expect(stuck).toMatchObject({
      ok: false,
      failure: { stage: 'expectation', description: 'text "1 item left" is visible' },
    });
  }, 240_000);

  it('is red on an app that counts completed todos too, naming the numbers it expected and saw', async () => {
    const check = (await readCheckFile(workspace, 'F-005'))?.current as RecordedCheck;
    const file = path.join(workspace, 'public/features/remaining-count.js');
    const fixed = 'const left = state.todos.filter((todo) => !todo.completed).length;';
    const text = await readFile(file, 'utf8');
    expect(text).toContain(fixed);
    await writeFile(file, text.replace(fixed, 'const left = state.todos.length;'));
    const broken = await replayCheck(browser, check, { baseUrl: (await usedApp()).url });
    // 3 todos counted at the start (the bug counts the completed one), 5 after the adds: 4 expected after the tick.
    expect(broken).toMatchObject({ ok: false, failure: { stage: 'expectation' } });
    expect(broken.failure?.message).toBe(
      'expected the numbers 4 (read 3 after action 1); the page shows "5 items left"',
    );
  }, 120_000);
});
