import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Tool, ToolContext, ToolOutput } from '../../../agent/tool.js';
import { runToolCall } from '../../../agent/tool-runner.js';
import { createBrowserTools, ObservationLog } from '../../../agent/tools/browser.js';
import { type CheckExpectation, RecordedCheck } from '../../../checks/format.js';
import { recordSegment } from '../../../checks/recorder.js';
import { replayInContext } from '../../../checks/replay.js';
import {
  type BrowserPool,
  createBrowserPool,
  type EvaluationContext,
} from '../../../workers/browser-pool.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { freePort } from './todo-app.js';

const CHROMIUM = chromiumExecutable();

/** The static test app: dialogs, a help link in a new tab, a tooltip, a sortable list, an upload, a key counter. */
const PAGES: Record<string, string> = {
  '/': `<!doctype html><html><head><title>Todos</title><style>
    .tip { display: none; position: absolute; } #info:hover + .tip { display: block; }
    @media (min-width: 600px) { .mobile-only { display: none; } }
  </style></head><body>
  <h1 id="title">Todos</h1>
  <button id="rename">Rename list</button>
  <ul aria-label="Todos">
    <li>Buy milk <button data-title="Buy milk">Delete Buy milk</button></li>
    <li>Walk the dog <button data-title="Walk the dog">Delete Walk the dog</button></li>
  </ul>
  <a href="/help" target="_blank">Help</a> <a href="/details">Details</a>
  <button id="info">Info</button><span class="tip" role="tooltip">Saves your list</span>
  <ol aria-label="Order">
    <li draggable="true">First</li><li draggable="true">Second</li><li draggable="true">Third</li>
  </ol>
  <label>Attachment <input type="file" id="file"></label><p id="chosen">Nothing chosen</p>
  <label>Search <input id="search"></label><p id="keys">Keys pressed: 0</p>
  <p class="mobile-only">Mobile menu</p>
  <script>
    for (const button of document.querySelectorAll('button[data-title]')) {
      button.onclick = () => {
        if (confirm('Delete "' + button.dataset.title + '"?')) button.parentElement.remove();
      };
    }
    document.getElementById('rename').onclick = () => {
      const name = prompt('New name?', 'Todos');
      if (name) document.getElementById('title').textContent = name;
    };
    let dragged;
    for (const item of document.querySelectorAll('[draggable]')) {
      item.ondragstart = () => { dragged = item; };
      item.ondragover = (event) => event.preventDefault();
      item.ondrop = (event) => { event.preventDefault(); item.after(dragged); };
    }
    document.getElementById('file').onchange = (event) => {
      const file = event.target.files[0];
      document.getElementById('chosen').textContent = 'Chosen: ' + file.name + ' (' + file.size + ' bytes)';
    };
    let keys = 0;
    document.getElementById('search').onkeydown = () => {
      keys += 1;
      document.getElementById('keys').textContent = 'Keys pressed: ' + keys;
    };
  </script></body></html>`,
  '/help': '<!doctype html><title>Help</title><h1>Help center</h1><p>Ask us anything.</p>',
  '/details': '<!doctype html><title>Details</title><h1>Details page</h1>',
};

/** The ref the snapshot gives the first element whose line matches `pattern`. */
function refOf(snapshot: string, pattern: RegExp): string {
  const line = snapshot.split('\n').find((candidate) => pattern.test(candidate));
  const ref = line && /\[ref=((?:f\d+)?e\d+)\]/.exec(line)?.[1];
  if (!ref) throw new Error(`no element matching ${pattern} in snapshot:\n${snapshot}`);
  return ref;
}

/** The snapshot part of a tool result. */
function snapshotOf(output: ToolOutput): string {
  return output.content.split('Snapshot:')[1] ?? '';
}

describe('browser tools for dialogs, tabs, hover, drag, upload, back, resize and key-by-key typing', () => {
  let pool: BrowserPool;
  let server: Server;
  let origin: string;
  let root: string;
  let workspace: string;
  let evaluation: EvaluationContext;
  let log: ObservationLog;
  let call: (name: string, args?: Record<string, unknown>) => Promise<ToolOutput>;

  beforeAll(async () => {
    pool = createBrowserPool({ executablePath: CHROMIUM });
    const port = await freePort();
    server = createServer((req, res) => {
      const page = PAGES[new URL(req.url ?? '/', 'http://x').pathname];
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page ?? 'not found');
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${port}`;
    root = await mkdtemp(path.join(tmpdir(), 'nightshift-browser-interactions-'));
    workspace = path.join(root, 'workspace');
    await mkdir(path.join(workspace, 'files'), { recursive: true });
    await writeFile(path.join(workspace, 'files', 'notes.txt'), 'hello');
    await writeFile(path.join(root, 'outside.txt'), 'secret');
    await symlink(path.join(workspace, 'files', 'notes.txt'), path.join(workspace, 'link.txt'));
  });

  afterAll(async () => {
    await pool?.close();
    await new Promise((resolve) => server?.close(resolve));
    if (root) await rm(root, { recursive: true, force: true });
  });

  beforeEach(async () => {
    evaluation = await pool.acquireContext({ evidenceDir: path.join(root, 'evidence'), trace: false });
    evaluation.allowOrigin(origin);
    log = new ObservationLog();
    const tools = new Map<string, Tool>(
      createBrowserTools({
        page: evaluation.page,
        evidenceDir: evaluation.evidenceDir,
        consoleMessages: () => evaluation.consoleMessages,
        allowedOrigins: [origin],
        observations: log,
      }).map((tool) => [tool.name, tool]),
    );
    const context: ToolContext = { workspace, protectedPaths: [], signal: new AbortController().signal };
    call = async (name, args = {}) =>
      (await runToolCall({ type: 'tool_call', id: `c-${name}`, name, arguments: args }, tools, context))
        .output;
  });

  afterEach(async () => {
    await evaluation.close();
  });

  /**
   * Replays what the session did (as the recorder turns the log into a check) in a fresh context; returns the
   * failure (undefined when green) and the text of the page the replay ended on.
   */
  async function replayed(expectations: CheckExpectation[], of = 'body') {
    const check = RecordedCheck.parse({
      featureId: 'F-001',
      version: 1,
      recordedAt: new Date().toISOString(),
      origin: { runId: 'r-1', session: 1, reason: 'manual' },
      actions: recordSegment(log.entries(), 0, `${origin}/`).actions,
      expectations,
    });
    const fresh = await pool.acquireContext({ evidenceDir: path.join(root, 'replay'), trace: false });
    fresh.allowOrigin(origin);
    try {
      const result = await replayInContext(fresh.context, check, { baseUrl: `${origin}/` });
      const last = fresh.context.pages().findLast((page) => page.url() !== 'about:blank');
      return { failure: result.failure, text: (await last?.locator(of).textContent())?.replace(/\s+/g, '') };
    } finally {
      await fresh.close();
    }
  }

  it('accepts confirm() by default, dismisses it when told, answers a prompt, and reports every dialog', async () => {
    const opened = await call('browser_navigate', { url: `${origin}/` });
    const deleted = await call('browser_click', { ref: refOf(opened.content, /button "Delete Buy milk"/) });
    expect(deleted.isError).not.toBe(true);
    expect(deleted.content).toContain('A confirm dialog appeared: "Delete \\"Buy milk\\"?" (accepted).');
    expect(snapshotOf(deleted)).not.toContain('Buy milk');

    const told = await call('browser_handle_dialog', { accept: false });
    expect(told.content).toMatch(/next dialog will be dismissed/);
    const kept = await call('browser_click', { ref: refOf(deleted.content, /button "Delete Walk the dog"/) });
    expect(kept.content).toContain('A confirm dialog appeared: "Delete \\"Walk the dog\\"?" (dismissed).');
    expect(snapshotOf(kept)).toContain('Walk the dog');

    await call('browser_handle_dialog', { accept: true, prompt_text: 'Groceries' });
    const renamed = await call('browser_click', { ref: refOf(kept.content, /button "Rename list"/) });
    expect(renamed.content).toContain('A prompt dialog appeared: "New name?" (accepted with "Groceries").');
    expect(snapshotOf(renamed)).toMatch(/heading "Groceries"/);

    const clicks = log.entries().filter((entry) => entry.tool === 'browser_click');
    expect(clicks.map((entry) => entry.dialogs.map((d) => [d.type, d.answer]))).toEqual([
      [['confirm', 'accepted']],
      [['confirm', 'dismissed']],
      [['prompt', 'accepted']],
    ]);
    const actions = recordSegment(log.entries(), 0, `${origin}/`).actions;
    expect(actions.map((action) => (action.kind === 'click' ? action.dialog : action.kind))).toEqual([
      'goto',
      'accept',
      'dismiss',
      'accept',
    ]);
    const replay = await replayed([
      { kind: 'text', text: 'Groceries', visible: true },
      { kind: 'text', text: 'Walk the dog', visible: true },
      { kind: 'text', text: 'Buy milk', visible: false },
    ]);
    expect(replay.failure).toBeUndefined();
  });

  it('follows a target=_blank link into a new tab, lists, selects and closes tabs', async () => {
    const opened = await call('browser_navigate', { url: `${origin}/` });
    const help = await call('browser_click', { ref: refOf(opened.content, /link "Help"/) });
    expect(help.isError).not.toBe(true);
    expect(help.content).toContain(`A new tab opened: ${origin}/help`);
    expect(snapshotOf(help)).toMatch(/heading "Help center"/);
    expect(log.entries().at(-1)?.newTabs).toEqual([`${origin}/help`]);
    expect(recordSegment(log.entries(), 0, `${origin}/`).actions.at(-1)).toMatchObject({ popup: true });

    const listed = await call('browser_tabs', { action: 'list' });
    expect(listed.content).toContain(`0: ${origin}/ "Todos"`);
    expect(listed.content).toContain(`1: ${origin}/help "Help" (current)`);

    const selected = await call('browser_tabs', { action: 'select', index: 0 });
    expect(selected.content).toContain('Switched to tab 0.');
    expect(snapshotOf(selected)).toMatch(/heading "Todos"/);
    const missing = await call('browser_tabs', { action: 'select', index: 5 });
    expect(missing.isError).toBe(true);
    expect(missing.content).toMatch(/no tab 5; open tabs are 0 to 1/);

    const replay = await replayed([{ kind: 'text', text: 'Todos', visible: true }]);
    expect(replay.failure).toBeUndefined();
    expect(recordSegment(log.entries(), 0, `${origin}/`).actions.at(-1)).toEqual({ kind: 'tab', index: 0 });

    const closed = await call('browser_tabs', { action: 'close', index: 1 });
    expect(closed.content).toContain('Closed tab 1.');
    expect(closed.content.split('Page URL:')[0]).not.toContain('/help');
    const last = await call('browser_tabs', { action: 'close' });
    expect(last.isError).toBe(true);
    expect(last.content).toMatch(/last tab cannot be closed/);
  });

  it('hovers to reveal a tooltip and drags an item to reorder a list', async () => {
    const opened = await call('browser_navigate', { url: `${origin}/` });
    expect(snapshotOf(opened)).not.toContain('Saves your list');
    const hovered = await call('browser_hover', { ref: refOf(opened.content, /button "Info"/) });
    expect(hovered.isError).not.toBe(true);
    expect(snapshotOf(hovered)).toContain('Saves your list');

    const order = (output: ToolOutput) =>
      [...snapshotOf(output).matchAll(/listitem[^\n]*?(First|Second|Third)/g)].map((match) => match[1]);
    expect(order(hovered)).toEqual(['First', 'Second', 'Third']);
    const dragged = await call('browser_drag', {
      start_ref: refOf(hovered.content, /listitem.*First/),
      end_ref: refOf(hovered.content, /listitem.*Third/),
    });
    expect(dragged.isError).not.toBe(true);
    expect(order(dragged)).toEqual(['Second', 'Third', 'First']);
    expect(log.entries().at(-1)?.dropTarget?.text).toBe('Third');
    const replay = await replayed([{ kind: 'text', text: 'Third', visible: true }], 'ol');
    expect(replay).toEqual({ failure: undefined, text: 'SecondThirdFirst' });
  });

  it('uploads a workspace file and refuses a symlink and a path outside, by name', async () => {
    const opened = await call('browser_navigate', { url: `${origin}/` });
    const input = refOf(opened.content, /"Attachment"/);
    const linked = await call('browser_file_upload', { ref: input, paths: ['link.txt'] });
    expect(linked.isError).toBe(true);
    expect(linked.content).toMatch(/link\.txt is or passes through a symbolic link/);
    const outside = await call('browser_file_upload', { ref: input, paths: ['../outside.txt'] });
    expect(outside.isError).toBe(true);
    expect(outside.content).toMatch(/\.\.\/outside\.txt resolves outside the workspace/);
    const absent = await call('browser_file_upload', { ref: input, paths: ['files/none.txt'] });
    expect(absent.content).toMatch(/files\/none\.txt does not exist/);
    expect(await evaluation.page.locator('#chosen').textContent()).toBe('Nothing chosen');

    const uploaded = await call('browser_file_upload', { ref: input, paths: ['files/notes.txt'] });
    expect(uploaded.isError).not.toBe(true);
    expect(uploaded.content).toContain('Chose notes.txt');
    expect(snapshotOf(uploaded)).toContain('Chosen: notes.txt (5 bytes)');
  });

  it('goes back, resizes to a phone width, and types key by key when asked', async () => {
    const opened = await call('browser_navigate', { url: `${origin}/` });
    const details = await call('browser_click', { ref: refOf(opened.content, /link "Details"/) });
    expect(snapshotOf(details)).toMatch(/heading "Details page"/);
    const back = await call('browser_navigate_back');
    expect(back.isError).not.toBe(true);
    expect(back.content).toContain(`Went back to ${origin}/`);
    expect(snapshotOf(back)).toMatch(/heading "Todos"/);
    expect(recordSegment(log.entries(), 0, `${origin}/`).actions.at(-1)).toEqual({ kind: 'back' });

    expect(snapshotOf(back)).not.toContain('Mobile menu');
    const tooSmall = await call('browser_resize', { width: 10, height: 700 });
    expect(tooSmall.isError).toBe(true);
    const phone = await call('browser_resize', { width: 400, height: 700 });
    expect(phone.content).toContain('The viewport is now 400 x 700.');
    expect(snapshotOf(phone)).toContain('Mobile menu');

    const search = refOf(phone.content, /textbox "Search"/);
    const filled = await call('browser_type', { ref: search, text: 'milk' });
    expect(snapshotOf(filled)).toContain('Keys pressed: 0'); // a fill fires no key events
    const typed = await call('browser_type', { ref: search, text: 'bread', slowly: true });
    expect(typed.content).toContain('key by key');
    expect(snapshotOf(typed)).toContain('Keys pressed: 5');
    expect(await evaluation.page.locator('#search').inputValue()).toBe('bread');
    expect(recordSegment(log.entries(), 0, `${origin}/`).actions.at(-1)).toEqual({
      kind: 'type',
      target: "getByRole('textbox', { name: 'Search', exact: true })",
      text: 'bread',
    });
    const replay = await replayed([
      { kind: 'text', text: 'Mobile menu', visible: true },
      { kind: 'text', text: 'Keys pressed: 5', visible: true },
    ]);
    expect(replay.failure).toBeUndefined();
  });
});
