/**
 * Finding 4 of issue 12, replayed as a hostile evaluator session through the scripted model server, real
 * bubblewrap (the app runs in its box as always), Chromium and the evaluator's whole path: the app's pages try
 * every way a page has to reach another server on this machine — a "victim" counting every TCP connection and
 * UDP datagram on its port, on every local address. After the session: the victim saw nothing, its text is in
 * no request to the model, each attempt is listed by `browser_console_messages` as blocked and is a
 * `sandbox.egress_refused` event (source `browser`), the app's own WebSocket still works, and the session
 * finished. A control run of the same pages in a plain Chromium (no gate, no WebRTC flag) reaches the victim
 * with every variant, so the test can fail. The table it prints is the one in docs/security.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../agent/events.js';
import { sandboxInfo } from '../../../box/bubblewrap.js';
import { startApp } from '../../../handoff/app-runner.js';
import { lastToolResults } from '../../../testkit/policies.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, Policy, ScriptedToolCall } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { CHROMIUM_BASE_ARGS } from '../../../workers/chromium-flags.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { firstMessage, makeWorkspace, removeWorkspace, runSession, turnOf } from '../roles/role-helpers.js';
import { hostileAppSource, PAGE_VARIANTS, startVictim, VICTIM_TEXT, type Victim } from './hostile-pages.js';
import { KEYS } from './hostile-session.js';

const info = await sandboxInfo();
const FEATURES = [
  { id: 'F-001', category: 'functional', description: 'A page', steps: ['Open the page'], passes: false },
];
/** Pages the scripted evaluator opens, in order: every variant, a big download, then the app's own WebSocket. */
const PAGES = [...PAGE_VARIANTS.map((variant) => variant.name), 'download', 'own-socket'];
/** Bytes of the app's download (files of 'x') in Playwright's download directories, at each turn of the session. */
const artifactBytes: number[] = [];

let server: ModelServer;
let browser: BrowserPool;
let victim: Victim;
const savedEnv = { ...process.env };
const results: string[] = [];

/** Playwright keeps downloads under the OS temp dir; other processes' traces there are told apart by content. */
function downloadedBytes(): number {
  let total = 0;
  for (const dir of fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('playwright-artifacts-'))) {
    for (const name of fs.readdirSync(path.join(os.tmpdir(), dir), { recursive: true }) as string[]) {
      const file = path.join(os.tmpdir(), dir, name);
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      if (!stat?.isFile() || stat.size < 16) continue;
      const head = Buffer.alloc(16);
      const fd = fs.openSync(file, 'r');
      fs.readSync(fd, head, 0, 16, 0);
      fs.closeSync(fd);
      if (head.every((byte) => byte === 120)) total += stat.size;
    }
  }
  return total;
}

/** One call per page, a wait for the app's socket, the console listing, a verdict. */
const evaluatorPolicy: Policy = (conversation) => {
  const appUrl = /http:\/\/127\.0\.0\.1:\d+\//.exec(firstMessage(conversation))?.[0] ?? '';
  const turn = turnOf(conversation);
  if (turn > 0) results[turn - 1] = lastToolResults(conversation)[0]?.content ?? '';
  artifactBytes.push(downloadedBytes());
  const calls: ScriptedToolCall[] = [
    ...PAGES.map((name) => ({ name: 'browser_navigate', arguments: { url: `${appUrl}v/${name}` } })),
    { name: 'browser_wait_for', arguments: { text: 'socket says', time_ms: 5_000 } },
    { name: 'browser_wait_for', arguments: { time_ms: 1_000 } },
    { name: 'browser_console_messages', arguments: {} },
    {
      name: 'submit_verdict',
      arguments: {
        feature_id: 'F-001',
        verdict: 'fail',
        steps: [{ step: 'Open the page', ok: true, evidence: 'the pages' }],
        issues: ['the app tries to reach other servers'],
      },
    },
  ];
  const call = calls[turn];
  return call ? { toolCalls: [call] } : { text: 'Done.' };
};

function hostileFiles(): Record<string, string> {
  return {
    'feature_list.json': `${JSON.stringify(FEATURES, null, 2)}\n`,
    'progress.md': '# Progress\n',
    'init.sh': '#!/usr/bin/env bash\nexec node server.js\n',
    'server.js': hostileAppSource(victim.port),
  };
}

beforeAll(async () => {
  if (!info.bubblewrap) return;
  Object.assign(process.env, KEYS);
  victim = await startVictim();
  server = await startModelServer({ policy: evaluatorPolicy });
  browser = createBrowserPool({ prewarm: false });
}, 60_000);

afterAll(async () => {
  process.env = savedEnv;
  if (!info.bubblewrap) return;
  await browser.close();
  await server.close();
  await victim.close();
});

describe.skipIf(!info.bubblewrap)("a hostile app's pages in the evaluator's browser", () => {
  it('reach nothing but the app: every attempt blocked, listed and an event; the victim sees nothing', async () => {
    const { workspace, dataDir } = await makeWorkspace(hostileFiles());
    const events: AgentEvent[] = [];
    victim.reset();
    try {
      const result = await runSession(server, {
        role: 'evaluator',
        workspace,
        dataDir,
        featureIds: ['F-001'],
        browser,
        limits: { maxSteps: 40, maxMinutes: 10 },
        sandbox: { sandbox: 'bubblewrap', network: 'registries' },
        sink: (event) => events.push(event),
      });
      expect(result.outcome, result.reason).toBe('completed');
      expect(result.verdicts.map((verdict) => verdict.verdict)).toEqual(['fail']);
    } finally {
      removeWorkspace(workspace);
    }
    await new Promise((resolve) => setTimeout(resolve, 500)); // anything still in flight would land now
    // The download (64 MiB) was refused: nothing of it reached the host's disk while the context was open.
    expect(Math.max(...artifactBytes)).toBeLessThan(1024 * 1024);
    expect(victim.connections).toBe(0);
    expect(victim.datagrams).toBe(0);
    const bodies = server.requests.map((request) => request.body).join('\n');
    expect(bodies).not.toContain(VICTIM_TEXT);
    for (const key of Object.values(KEYS)) expect(bodies).not.toContain(key);

    const byPage = new Map(PAGES.map((name, index) => [name, results[index] ?? '']));
    expect(byPage.get('own-socket')).toContain('Variant own-socket');
    expect(results[PAGES.length]).toContain('socket says hello from the app');
    expect(byPage.get('iframe')).toContain('blocked by nightshift');
    expect(byPage.get('redirect')).toContain('the page is now outside the app under test');
    const listing = results[PAGES.length + 2] ?? '';
    const hit = (name: string) => `http://127.0.0.1:${victim.port}/hit/${name}`;
    const tunnel = `CONNECT 127.0.0.1:${victim.port}:`;
    const expected: Record<string, string[]> = {
      img: [`[blocked] GET ${hit('img')}`],
      'fetch-cors': [`[blocked] OPTIONS ${hit('fetch-cors')}`],
      'fetch-no-cors': [`[blocked] GET ${hit('fetch-no-cors')}`],
      xhr: [`[blocked] GET ${hit('xhr')}`],
      beacon: [`[blocked] POST ${hit('beacon')}`],
      websocket: [`[blocked] ${tunnel}`],
      form: [`[blocked] POST ${hit('form')}`],
      popup: [`[blocked] GET ${hit('popup')}`],
      refresh: [`[blocked] GET ${hit('refresh')}`],
      iframe: [`[blocked] GET ${hit('iframe')}`],
      redirect: [`[blocked] GET ${hit('redirect')}`],
      'service-worker': [`[blocked] GET ${hit('service-worker')}`],
      worker: [`[blocked] GET ${hit('worker')}`],
      prefetch: [`[blocked] GET ${hit('prefetch')}`],
      eventsource: [`[blocked] GET ${hit('eventsource')}`],
      names: [
        `[blocked] GET http://localhost:${victim.port}/hit/names-localhost`,
        `[blocked] GET http://[::1]:${victim.port}/hit/names-ipv6`,
        `[blocked] GET http://127.0.0.2:${victim.port}/hit/names-alt`,
      ],
      webrtc: [`[blocked] ${tunnel}`],
    };
    for (const variant of PAGE_VARIANTS) {
      for (const line of expected[variant.name] ?? ['(no expectation)'])
        expect(listing, variant.name).toContain(line);
    }
    const refused = events.filter(
      (event): event is Extract<AgentEvent, { type: 'sandbox.egress_refused' }> =>
        event.type === 'sandbox.egress_refused' && event.source === 'browser',
    );
    const reasons = refused.map((event) => event.reason).join('\n');
    for (const name of ['img', 'beacon', 'form', 'redirect', 'service-worker'])
      expect(reasons).toContain(hit(name));
    expect(refused.some((event) => event.host === '::1' && event.port === victim.port)).toBe(true);
    console.log(
      PAGE_VARIANTS.map((variant, i) => `| W${i + 1} | ${variant.attempt} | gate: 403, listed, event |`).join(
        '\n',
      ),
    );
  }, 600_000);

  it('control: the same pages in a plain Chromium reach the victim with every variant', async () => {
    const { workspace, dataDir } = await makeWorkspace(hostileFiles());
    const started = await startApp({
      workspace,
      logFile: path.join(dataDir, 'app.log'),
      sandbox: 'bubblewrap',
      network: 'none',
      hiddenPaths: [dataDir],
    });
    if (!started.ok) throw new Error(started.reason);
    const plain = await chromium.launch({
      executablePath: chromiumExecutable(),
      args: CHROMIUM_BASE_ARGS.filter((arg) => !arg.includes('webrtc-ip-handling-policy')),
    });
    try {
      const page = await (await plain.newContext()).newPage();
      const reached: Record<string, boolean> = {};
      for (const variant of PAGE_VARIANTS) {
        victim.reset();
        await page.goto(`${started.app.url}v/${variant.name}`).catch(() => undefined);
        await page.waitForTimeout(1_500);
        reached[variant.name] =
          variant.name === 'webrtc'
            ? victim.datagrams > 0
            : victim.requests.some((line) => line.includes(`/hit/${variant.name}`));
      }
      expect(reached).toEqual(Object.fromEntries(PAGE_VARIANTS.map((variant) => [variant.name, true])));
    } finally {
      await plain.close();
      await started.app.stop();
      fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
    }
  }, 300_000);
});
