import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Tool, ToolContext, ToolOutput } from '../../../agent/tool.js';
import { runToolCall } from '../../../agent/tool-runner.js';
import { BROWSER_TOOL_NAMES, createBrowserTools } from '../../../agent/tools/browser.js';
import {
  type BrowserPool,
  createBrowserPool,
  type EvaluationContext,
} from '../../../workers/browser-pool.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { type RunningTodoApp, startTodoApp } from './todo-app.js';

const CHROMIUM = chromiumExecutable();

/** One evaluation: a fresh context from the pool and the tools bound to its page. */
interface Harness {
  evaluation: EvaluationContext;
  call(name: string, args?: Record<string, unknown>): Promise<ToolOutput>;
}

/** The ref the snapshot gives the first element whose line matches `pattern`. */
function refOf(snapshot: string, pattern: RegExp): string {
  const line = snapshot.split('\n').find((candidate) => pattern.test(candidate));
  const ref = line && /\[ref=((?:f\d+)?e\d+)\]/.exec(line)?.[1];
  if (!ref) throw new Error(`no element matching ${pattern} in snapshot:\n${snapshot}`);
  return ref;
}

describe('browser tools against the todo fixture app', () => {
  let pool: BrowserPool;
  let evidenceRoot: string;
  let app: RunningTodoApp;
  let buggyApp: RunningTodoApp;
  let harness: Harness;
  let counter = 0;

  async function openHarness(allowedOrigin: string): Promise<Harness> {
    counter += 1;
    const evidenceDir = path.join(evidenceRoot, `evaluation-${counter}`);
    const evaluation = await pool.acquireContext({ evidenceDir, trace: true });
    evaluation.allowOrigin(allowedOrigin);
    const tools = new Map<string, Tool>(
      createBrowserTools({
        page: evaluation.page,
        evidenceDir,
        consoleMessages: () => evaluation.consoleMessages,
        allowedOrigins: [allowedOrigin],
      }).map((tool) => [tool.name, tool]),
    );
    const context: ToolContext = {
      workspace: evidenceRoot,
      protectedPaths: [],
      signal: new AbortController().signal,
    };
    return {
      evaluation,
      async call(name, args = {}) {
        const run = await runToolCall(
          { type: 'tool_call', id: `call-${name}`, name, arguments: args },
          tools,
          context,
        );
        return run.output;
      },
    };
  }

  beforeAll(async () => {
    pool = createBrowserPool({ executablePath: CHROMIUM });
    evidenceRoot = await mkdtemp(path.join(tmpdir(), 'nightshift-browser-tools-'));
    app = await startTodoApp();
    buggyApp = await startTodoApp({ BUG: 'count' });
  });

  afterAll(async () => {
    await pool?.close();
    await app?.stop();
    await buggyApp?.stop();
    if (evidenceRoot) await rm(evidenceRoot, { recursive: true, force: true });
  });

  beforeEach(async () => {
    harness = await openHarness(app.origin);
  });

  afterEach(async () => {
    await harness.evaluation.close();
  });

  it('offers exactly the browser tools of the evaluator', () => {
    const tools = createBrowserTools({
      page: harness.evaluation.page,
      evidenceDir: evidenceRoot,
      consoleMessages: () => [],
      allowedOrigins: [app.origin],
    });
    expect(tools.map((tool) => tool.name)).toEqual([...BROWSER_TOOL_NAMES]);
    expect([...BROWSER_TOOL_NAMES].sort()).toEqual([
      'browser_click',
      'browser_console_messages',
      'browser_drag',
      'browser_file_upload',
      'browser_handle_dialog',
      'browser_hover',
      'browser_navigate',
      'browser_navigate_back',
      'browser_press_key',
      'browser_resize',
      'browser_select_option',
      'browser_snapshot',
      'browser_tabs',
      'browser_take_screenshot',
      'browser_type',
      'browser_wait_for',
    ]);
  });

  it('adds and completes a todo through refs, and the snapshot shows the remaining count', async () => {
    const opened = await harness.call('browser_navigate', { url: app.url });
    expect(opened.isError).not.toBe(true);
    expect(opened.content).toContain(`Navigated to ${app.url} (HTTP 200)`);
    expect(opened.content).toContain('Page title: Todos');
    expect(opened.content).not.toContain('New console errors');
    expect(opened.content).toMatch(/textbox "What needs to be done\?".*\[ref=e\d+\]/);
    expect(opened.content).toMatch(/button "Add".*\[ref=e\d+\]/);

    const snapshot = (await harness.call('browser_snapshot')).content;
    const textbox = refOf(snapshot, /textbox "What needs to be done\?"/);
    const typed = await harness.call('browser_type', { ref: textbox, text: 'Buy milk', submit: true });
    expect(typed.isError).not.toBe(true);
    expect(typed.content).toMatch(/checkbox "Buy milk"/);
    expect(typed.content).toContain('1 item left');

    const afterSecond = await harness.call('browser_type', {
      ref: refOf(typed.content, /textbox "What needs to be done\?"/),
      text: 'Walk the dog',
    });
    expect(afterSecond.content).not.toMatch(/checkbox "Walk the dog"/); // typed but not submitted yet
    const added = await harness.call('browser_click', { ref: refOf(afterSecond.content, /button "Add"/) });
    expect(added.content).toMatch(/checkbox "Walk the dog"/);
    expect(added.content).toContain('2 items left');

    const completed = await harness.call('browser_click', {
      ref: refOf(added.content, /checkbox "Buy milk"/),
    });
    expect(completed.isError).not.toBe(true);
    expect(completed.content).toMatch(/checkbox "Buy milk" \[checked\]/);
    expect(completed.content).toContain('1 item left');

    // Todos live on the server: a reload still shows them.
    const reloaded = await harness.call('browser_navigate', { url: '/' });
    expect(reloaded.content).toMatch(/checkbox "Buy milk" \[checked\]/);
    expect(reloaded.content).toContain('1 item left');

    const deleted = await harness.call('browser_click', {
      ref: refOf(reloaded.content, /button "Delete Walk the dog"/),
    });
    expect(deleted.content).not.toContain('Walk the dog');
    expect(deleted.content).toContain('0 items left');
  });

  it('shows the planted bug: the remaining count does not go down', async () => {
    await harness.evaluation.close();
    harness = await openHarness(buggyApp.origin);
    const opened = await harness.call('browser_navigate', { url: buggyApp.url });
    const typed = await harness.call('browser_type', {
      ref: refOf(opened.content, /textbox "What needs to be done\?"/),
      text: 'Find the bug',
      submit: true,
    });
    expect(typed.content).toContain('1 item left');
    const completed = await harness.call('browser_click', {
      ref: refOf(typed.content, /checkbox "Find the bug"/),
    });
    expect(completed.content).toMatch(/checkbox "Find the bug" \[checked\]/);
    expect(completed.content).toContain('1 item left'); // wrong: should be 0
  });

  it('presses keys, waits for text, and selects options', async () => {
    const opened = await harness.call('browser_navigate', { url: app.url });
    const textbox = refOf(opened.content, /textbox "What needs to be done\?"/);
    await harness.call('browser_type', { ref: textbox, text: 'Press enter' });
    await harness.call('browser_click', { ref: textbox });
    const pressed = await harness.call('browser_press_key', { key: 'Enter' });
    expect(pressed.isError).not.toBe(true);
    expect(pressed.content).toMatch(/checkbox "Press enter"/);

    const waited = await harness.call('browser_wait_for', { text: 'Press enter', time_ms: 2_000 });
    expect(waited.isError).not.toBe(true);
    const missing = await harness.call('browser_wait_for', { text: 'never shown anywhere', time_ms: 300 });
    expect(missing.isError).toBe(true);
    expect(missing.content).toMatch(/Timeout 300ms exceeded/);
    const nothing = await harness.call('browser_wait_for', {});
    expect(nothing.isError).toBe(true);
    expect(nothing.content).toMatch(/Give text, text_gone or time_ms/);

    await harness.evaluation.page.evaluate(() => {
      const note = document.createElement('p');
      note.textContent = 'Saving soon';
      document.body.append(note);
      setTimeout(() => note.remove(), 300);
    });
    const gone = await harness.call('browser_wait_for', { text_gone: 'Saving soon' });
    expect(gone.isError).not.toBe(true);
    expect(gone.content.split('Snapshot:')[1]).not.toContain('Saving soon');
    const stays = await harness.call('browser_wait_for', { text_gone: 'Press enter', time_ms: 200 });
    expect(stays.isError).toBe(true);

    // The fixture has no <select>; give the page one to exercise the tool on a real element.
    await harness.evaluation.page.evaluate(() => {
      document.body.insertAdjacentHTML(
        'beforeend',
        '<label>Filter <select id="f"><option value="all">All</option><option value="done">Completed</option></select></label>',
      );
    });
    const snapshot = (await harness.call('browser_snapshot')).content;
    const selected = await harness.call('browser_select_option', {
      ref: refOf(snapshot, /combobox "Filter"/),
      values: ['Completed'],
    });
    expect(selected.isError).not.toBe(true);
    expect(selected.content).toContain('Selected ["done"]');
    expect(await harness.evaluation.page.locator('#f').inputValue()).toBe('done');
  });

  it('cuts a huge snapshot to head and tail', async () => {
    await harness.call('browser_navigate', { url: app.url });
    await harness.evaluation.page.evaluate(() => {
      const list = document.createElement('ol');
      list.setAttribute('aria-label', 'Huge');
      for (let i = 0; i < 3000; i += 1) list.insertAdjacentHTML('beforeend', `<li>row number ${i}</li>`);
      document.body.append(list);
    });
    const snapshot = await harness.call('browser_snapshot');
    expect(snapshot.isError).not.toBe(true);
    expect(snapshot.content).toMatch(/bytes omitted: the snapshot exceeded/);
    expect(snapshot.content).toContain('heading "Todos"'); // head kept
    expect(snapshot.content).toContain('row number 2999'); // tail kept
    expect(snapshot.content).not.toContain('row number 1500');
    expect(Buffer.byteLength(snapshot.content)).toBeLessThan(26_000);
  });

  it('saves numbered PNG screenshots and returns them as images', async () => {
    await harness.call('browser_navigate', { url: app.url });
    const first = await harness.call('browser_take_screenshot', {});
    const second = await harness.call('browser_take_screenshot', { full_page: true });
    const firstPath = first.details?.screenshotPath as string;
    const secondPath = second.details?.screenshotPath as string;
    expect(path.basename(firstPath)).toBe('screenshot-001.png');
    expect(path.basename(secondPath)).toBe('screenshot-002.png');
    expect(first.content).toContain(firstPath);
    const png = await readFile(firstPath);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(first.images).toEqual([{ mediaType: 'image/png', base64: png.toString('base64') }]);

    const evidence = await harness.evaluation.close();
    expect(evidence.screenshots).toEqual([firstPath, secondPath]);
    expect((await stat(evidence.tracePath!)).size).toBeGreaterThan(0);
  });

  it('refuses other origins and non-http URLs', async () => {
    for (const url of [
      'https://example.com/',
      'file:///etc/passwd',
      'http://127.0.0.1:1/',
      'javascript:alert(1)',
    ]) {
      const refused = await harness.call('browser_navigate', { url });
      expect(refused.isError, url).toBe(true);
      expect(refused.content, url).toMatch(/Refused|not a valid URL/);
    }
    expect(harness.evaluation.page.url()).toBe('about:blank');
  });

  it('turns unknown refs and page failures into tool errors', async () => {
    const opened = await harness.call('browser_navigate', { url: app.url });
    const unknown = await harness.call('browser_click', { ref: 'e999' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toMatch(/No element with ref e999.*browser_snapshot/s);

    const malformed = await harness.call('browser_type', { ref: 'the add button', text: 'x' });
    expect(malformed.isError).toBe(true);
    expect(malformed.content).toMatch(/not an element ref/);

    // A ref copied with its brackets still works.
    const add = refOf(opened.content, /button "Add"/);
    const bracketed = await harness.call('browser_click', { ref: `[ref=${add}]` });
    expect(bracketed.isError).not.toBe(true);

    // Filling a button cannot work: a Playwright error becomes a tool error, not a crash.
    const notEditable = await harness.call('browser_type', { ref: add, text: 'x' });
    expect(notEditable.isError).toBe(true);
    expect(notEditable.content).toMatch(/^Typing into e\d+ failed: /);
    expect(notEditable.content).not.toContain('\u001b[');
  });

  it('returns console messages and page errors', async () => {
    const empty = await harness.call('browser_console_messages');
    expect(empty.content).toBe('No console messages.');
    const opened = await harness.call('browser_navigate', { url: app.url });
    expect(opened.isError).not.toBe(true);
    const noisy = await harness.call('browser_navigate', { url: `${app.origin}/noisy` });
    expect(noisy.content).toContain('New console errors');
    expect(noisy.content).toContain('[error] noisy page error');
    await harness.call('browser_wait_for', { time_ms: 100 });
    const messages = await harness.call('browser_console_messages');
    expect(messages.content).toContain('todo app ready: ');
    expect(messages.content).toContain('[warning] noisy page warning');
    expect(messages.content).toContain('[pageerror] noisy page uncaught');
  });
});
