import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool, ToolContext, ToolOutput } from '../../../agent/tool.js';
import { runToolCall } from '../../../agent/tool-runner.js';
import { createBrowserTools, ObservationLog, ObservationLogData } from '../../../agent/tools/browser.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { type RunningTodoApp, startTodoApp } from './todo-app.js';

const CHROMIUM = chromiumExecutable();

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

  /** Browser tools on a fresh context allowed to `origin`, recording into a log of their own. */
  async function browserSession(name: string, origin: string) {
    const evaluation = await pool.acquireContext({
      evidenceDir: path.join(evidenceRoot, name),
      trace: false,
    });
    evaluation.allowOrigin(origin);
    const log = new ObservationLog();
    const tools = new Map<string, Tool>(
      createBrowserTools({
        page: evaluation.page,
        evidenceDir: evaluation.evidenceDir,
        consoleMessages: () => evaluation.consoleMessages,
        allowedOrigins: [origin],
        observations: log,
      }).map((tool) => [tool.name, tool]),
    );
    const context: ToolContext = {
      workspace: evidenceRoot,
      protectedPaths: [],
      signal: new AbortController().signal,
    };
    const call = async (tool: string, args: Record<string, unknown> = {}): Promise<ToolOutput> =>
      (await runToolCall({ type: 'tool_call', id: `c-${tool}`, name: tool, arguments: args }, tools, context))
        .output;
    return { evaluation, log, call };
  }

  it('records each call, what it showed, the preceding action and a structured target', async () => {
    const { evaluation, log, call } = await browserSession('one', app.origin);
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
      // The todo app never loads another document: every call after opening it shows the one it loaded.
      expect(navigate?.document?.navigation).toBe('navigate');
      expect(new Set([navigate, type, again, click].map((entry) => entry?.document?.origin)).size).toBe(1);
      expect(click?.console).toContain('[pageerror] boom from the app');
    } finally {
      await evaluation.close();
    }
  });

  it('records the document each call ended on: a form POST loads a new one, a step back is from history', async () => {
    // A server-rendered form that writes the typed name back (as the meal planner's refused sign-up does).
    const server = http.createServer((request, response) => {
      response.setHeader('content-type', 'text/html');
      if (request.url === '/other') return void response.end('<h1>Other</h1>');
      let body = '';
      request.on('data', (chunk) => {
        body += String(chunk);
      });
      request.on('end', () => {
        const name = new URLSearchParams(body).get('name') ?? '';
        const problem = request.method === 'POST' ? '<p>Enter a valid email.</p>' : '';
        response.end(
          `<form method="post">${problem}<label>Name <input name="name" value="${name.replace(/[<>&"]/g, '')}"></label><button>Create account</button></form>`,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { evaluation, log, call } = await browserSession('two', origin);
    try {
      const opened = await call('browser_navigate', { url: `${origin}/signup` });
      await call('browser_type', { ref: refOf(opened.content, /textbox "Name"/), text: 'Pat' });
      const posted = await call('browser_click', { ref: refOf(opened.content, /button "Create account"/) });
      expect(posted.content).toMatch(/textbox "Name".*: Pat/);
      await call('browser_navigate', { url: `${origin}/other` });
      await call('browser_navigate_back');
      const [navigate, type, click, away, back] = ObservationLogData.parse(log.entries()).map(
        (entry) => entry.document,
      );
      expect([navigate, type, click, away].map((document) => document?.navigation)).toEqual([
        'navigate',
        'navigate',
        'navigate',
        'navigate',
      ]);
      expect(type?.origin).toBe(navigate?.origin);
      expect(click?.origin).not.toBe(type?.origin);
      expect(away?.origin).not.toBe(click?.origin);
      expect(back?.navigation).toBe('back_forward');
    } finally {
      await evaluation.close();
      server.close();
    }
  });
});
