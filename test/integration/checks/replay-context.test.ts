import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayCheck } from '../../../checks/replay.js';
import { ReusedReplayContext } from '../../../checks/replay-context.js';
import {
  type BrowserPool,
  createBrowserPool,
  type EvaluationContext,
} from '../../../workers/browser-pool.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { recordedCheck } from './check-builder.js';
import { assembleDemoApp, type DemoApp, startDemoApp } from './demo-app.js';

const CHROMIUM = chromiumExecutable();
const TEXTBOX = "getByRole('textbox', { name: 'New todo', exact: true })";

/**
 * `/set` leaves every kind of state a page can leave in its context and tab (cookie, local and session storage,
 * IndexedDB, Cache Storage, window.name, history); `/report` shows what it finds of it (the hovered elements
 * besides the root and the body: browsers differ on those in a new page, where the headless shell counts the root). `/save-page` sends a
 * POST to `/save` a frame after each keystroke, answered slowly, and shows how many such answers got out.
 */
function statePage(): Promise<{ server: Server; url: string }> {
  let saved = 0;
  const report = `<p id="r">…</p><button onmouseover="this.textContent='hovered'">Pointer</button>
<script>
(async () => {
  const idb = (await indexedDB.databases()).map((db) => db.name).join(',') || 'none';
  const cached = (await caches.keys()).join(',') || 'none';
  document.getElementById('r').textContent = [
    'cookie=' + (document.cookie || 'none'), 'local=' + (localStorage.getItem('k') ?? 'none'),
    'session=' + (sessionStorage.getItem('k') ?? 'none'), 'idb=' + idb, 'caches=' + cached,
    'name=' + (window.name || 'none'), 'history=' + history.length,
    'viewport=' + innerWidth + 'x' + innerHeight, 'hovered=' + [...document.querySelectorAll(':hover')].filter((element) => element !== document.documentElement && element !== document.body).length,
  ].join(' ');
})();
</script>`;
  const set = `<p id="s">setting</p><button>Pointer</button><script>
(async () => {
  document.cookie = 'k=1; path=/'; localStorage.setItem('k', '1'); sessionStorage.setItem('k', '1');
  window.name = 'left';
  await new Promise((done) => { const r = indexedDB.open('left', 1); r.onupgradeneeded = () => r.result.createObjectStore('o'); r.onsuccess = () => { r.result.close(); done(); }; });
  await caches.open('left');
  document.getElementById('s').textContent = 'state set';
})();
</script>`;
  // An autosave: typing saves the draft once the page has rendered it (a frame later), as an effect would.
  const save = `<p>saved SAVED</p><label>Draft <input oninput="requestAnimationFrame(() => setTimeout(() => fetch('/save', { method: 'POST' })))"></label>`;
  const server = createServer((req, res) => {
    if (req.url === '/save') {
      // Counted only when the answer got out: a navigation that cuts the request off loses it.
      const timer = setTimeout(() => {
        saved += 1;
        res.end('ok');
      }, 300);
      req.once('close', () => {
        if (!res.writableEnded) clearTimeout(timer);
      });
      return;
    }
    const body =
      req.url === '/set' ? set : req.url === '/save-page' ? save.replace('SAVED', String(saved)) : report;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`<!doctype html><title>state</title>${body}`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}/` });
    }),
  );
}

const check = recordedCheck;

/** Leaves state behind: storage of every kind, a smaller viewport, the pointer over a button. */
const leaveState = check('F-001', {
  actions: [
    { kind: 'goto', path: '/set' },
    { kind: 'resize', width: 600, height: 500 },
    { kind: 'hover', target: "getByRole('button', { name: 'Pointer', exact: true })" },
  ],
  expectations: [{ kind: 'text', text: 'state set' }],
});

const report = check('F-002', {
  actions: [{ kind: 'goto', path: '/report' }],
  expectations: [{ kind: 'text', text: 'cookie=' }],
});

describe('one browser context reused by the replays of a sweep (real Chromium)', () => {
  let pool: BrowserPool;
  let browser: Browser;
  let site: { server: Server; url: string };
  const contexts: EvaluationContext[] = [];
  const apps: DemoApp[] = [];

  beforeAll(async () => {
    pool = createBrowserPool();
    browser = await chromium.launch({ executablePath: CHROMIUM });
    site = await statePage();
  });
  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await pool?.close();
    await browser?.close();
    site?.server.close();
    for (const app of apps) {
      await app.stop();
      await rm(app.dir, { recursive: true, force: true });
    }
  });

  async function reusedOn(url: string): Promise<ReusedReplayContext> {
    const evaluation = await pool.acquireContext({
      evidenceDir: '/tmp/ns-replay-context-test',
      trace: false,
    });
    contexts.push(evaluation);
    evaluation.allowOrigin(url);
    return new ReusedReplayContext(evaluation.context, url, evaluation.page);
  }

  async function reportText(page: import('playwright-core').Page): Promise<string> {
    await page.getByText('cookie=').waitFor();
    return (await page.locator('#r').textContent()) ?? '';
  }

  it('gives the next replay a page as clean as a new context: no storage, name, history, viewport or pointer left', async () => {
    // What a brand-new context shows.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const freshPage = await context.newPage();
    await freshPage.goto(`${site.url}report`);
    const fresh = await reportText(freshPage);
    await context.close();
    expect(fresh).toContain('cookie=none local=none session=none idb=none caches=none name=none');

    const reused = await reusedOn(site.url);
    expect(await reused.replay(leaveState)).toMatchObject({ ok: true });
    const after = await reused.replay(report);
    expect(after).toMatchObject({ ok: true });
    expect(after.split?.pageMs).toBeGreaterThan(0);
    const [page] = contexts.at(-1)?.context.pages() ?? [];
    expect(await reportText(page as import('playwright-core').Page)).toBe(fresh);
  });

  it('is red when a text that must be gone stays, saying how many elements still show it', async () => {
    const reused = await reusedOn(site.url);
    const gone = check('F-004', {
      actions: [{ kind: 'goto', path: '/set' }],
      expectations: [{ kind: 'text', text: 'state set', visible: false }],
    });
    expect((await reused.replay(gone)).failure).toEqual({
      stage: 'expectation',
      index: 0,
      description: 'text "state set" is not visible',
      message: '1 visible element(s) still show this text',
    });
  });

  it('does not cut off a request an action starts a frame late (an autosave) when the next action leaves the page', async () => {
    const reused = await reusedOn(site.url);
    const save = check('F-003', {
      actions: [
        { kind: 'goto', path: '/save-page' },
        { kind: 'fill', target: "getByRole('textbox', { name: 'Draft', exact: true })", text: 'Dear Sir' },
        { kind: 'goto', path: '/save-page' },
      ],
      expectations: [{ kind: 'text', text: 'saved 1' }],
    });
    const result = await reused.replay(save);
    expect(result.failure).toBeUndefined();
  });

  it('still replays a broken feature red, before and after green replays in the same context', async () => {
    const dir = await assembleDemoApp({ features: 2 }); // add and persist only: no checkboxes
    const app = await startDemoApp(dir);
    apps.push(app);
    const reused = await reusedOn(app.url);
    const add = (id: string, title: string) =>
      check(id, {
        actions: [
          { kind: 'goto', path: '/' },
          { kind: 'fill', target: TEXTBOX, text: title },
          { kind: 'press', key: 'Enter', target: TEXTBOX },
        ],
        expectations: [{ kind: 'text', text: title }],
      });
    const complete = check('F-003', {
      actions: [
        ...add('F-003', 'Pay the rent').actions,
        { kind: 'click', target: "getByRole('checkbox', { name: 'Toggle Pay the rent', exact: true })" },
      ],
      expectations: [{ kind: 'text', text: 'Pay the rent' }],
    });
    expect((await reused.replay(add('F-001', 'Buy milk'))).ok).toBe(true);
    const red = await reused.replay(complete);
    expect(red.failure).toMatchObject({ stage: 'action', index: 3 });
    expect((await reused.replay(add('F-002', 'Walk the dog'))).ok).toBe(true);
    // The same check in a new context of its own: red the same way.
    const alone = await replayCheck(browser, complete, { baseUrl: app.url });
    expect(alone.failure).toMatchObject({ stage: 'action', index: 3 });
  });
});
