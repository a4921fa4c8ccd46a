import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool, ToolContext, ToolOutput } from '../../../agent/tool.js';
import { runToolCall } from '../../../agent/tool-runner.js';
import { createBrowserTools, ObservationLog, ObservationLogData } from '../../../agent/tools/browser.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { type RunningTodoApp, startTodoApp } from './todo-app.js';

const CHROMIUM = process.env.NIGHTSHIFT_CHROMIUM ?? '/usr/bin/chromium';

function refOf(snapshot: string, pattern: RegExp): string {
  const line = snapshot.split('\n').find((candidate) => pattern.test(candidate));
  const ref = line && /\[ref=((?:f\d+)?e\d+)\]/.exec(line)?.[1];
  if (!ref) throw new Error(`no element matching ${pattern} in snapshot:\n${snapshot}`);
  return ref;
}

describe('the observation log of a browser session', () => {
  let pool: BrowserPool;
  let evidenceRoot: string;
  let app: RunningTodoApp;

  beforeAll(async () => {
    pool = createBrowserPool({ executablePath: CHROMIUM });
    evidenceRoot = await mkdtemp(path.join(tmpdir(), 'nightshift-browser-log-'));
    app = await startTodoApp();
  });

  afterAll(async () => {
    await pool?.close();
    await app?.stop();
    if (evidenceRoot) await rm(evidenceRoot, { recursive: true, force: true });
  });

  it('records each call, what it showed, the preceding action and a structured target', async () => {
    const evaluation = await pool.acquireContext({
      evidenceDir: path.join(evidenceRoot, 'one'),
      trace: false,
    });
    const log = new ObservationLog();
    const tools = new Map<string, Tool>(
      createBrowserTools({
        page: evaluation.page,
        evidenceDir: evaluation.evidenceDir,
        consoleMessages: () => evaluation.consoleMessages,
        allowedOrigins: [app.origin],
        observations: log,
      }).map((tool) => [tool.name, tool]),
    );
    const context: ToolContext = {
      workspace: evidenceRoot,
      protectedPaths: [],
      signal: new AbortController().signal,
    };
    const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolOutput> =>
      (await runToolCall({ type: 'tool_call', id: `c-${name}`, name, arguments: args }, tools, context))
        .output;
    try {
      await call('browser_snapshot');
      const opened = await call('browser_navigate', { url: app.url });
      const typed = await call('browser_type', {
        ref: refOf(opened.content, /textbox "What needs to be done\?"/),
        text: 'Buy milk',
        submit: true,
      });
      await call('browser_snapshot');
      await call('browser_click', { ref: 'e999' }); // a stale ref: recorded as a failed action
      await evaluation.page.evaluate(() =>
        setTimeout(() => {
          throw new Error('boom from the app');
        }, 0),
      );
      await call('browser_click', { ref: refOf(typed.content, /checkbox "Buy milk"/) });

      const entries = ObservationLogData.parse(log.entries());
      expect(entries.map((e) => [e.seq, e.tool, e.kind, e.ok, e.afterAction])).toEqual([
        [1, 'browser_snapshot', 'observation', true, 0],
        [2, 'browser_navigate', 'action', true, 2],
        [3, 'browser_type', 'action', true, 3],
        [4, 'browser_snapshot', 'observation', true, 3],
        [5, 'browser_click', 'action', false, 3],
        [6, 'browser_click', 'action', true, 6],
      ]);
      const [, navigate, type, again, stale, click] = entries;
      expect(navigate?.navigation).toEqual({ url: app.url, status: 200 });
      expect(type?.snapshot).toMatch(/checkbox "Buy milk"/);
      expect(type?.snapshot).toContain('1 item left');
      expect(type?.pageChanged).toBe(true);
      expect(again?.pageChanged).toBe(false);
      expect(type?.target).toMatchObject({
        role: 'textbox',
        name: 'What needs to be done?',
        locator: "getByRole('textbox', { name: 'What needs to be done?' })",
      });
      expect(stale?.error).toMatch(/No element with ref e999/);
      expect(click?.target).toMatchObject({ role: 'checkbox', name: 'Buy milk' });
      expect(click?.target?.locator).toContain('Buy milk');
      expect(click?.pageErrors).toEqual(['[pageerror] boom from the app']);
      expect(click?.console).toContain('[pageerror] boom from the app');
    } finally {
      await evaluation.close();
    }
  });
});
