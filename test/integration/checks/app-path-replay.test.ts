import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSpec, specPath } from '../../../checks/codegen.js';
import { RecordedCheck } from '../../../checks/format.js';
import { recordSegment } from '../../../checks/recorder.js';
import { replayCheck } from '../../../checks/replay.js';
import { writeSpecSupport } from '../../../checks/store.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { navigationEntry } from '../../unit/checks/observations.js';

// Issue 24: a recorded goto of a two-slash path on the app (`http://app//host:port/x`, also what `/\host` becomes)
// was stored as `//host:port/x` and replayed and exported as a protocol-relative URL: off the app. Here the "host" in
// the path is a victim server on this machine that counts every request; the replay runs in a plain Chromium (no
// browser gate), so only the stored path keeps it on the app.
const CHROMIUM = chromiumExecutable();
const REPO = path.resolve(import.meta.dirname, '../../..');

interface Counting {
  url: string;
  port: number;
  paths: string[];
  close(): Promise<void>;
}

/** An HTTP server answering every path with a page naming it (HTML-escaped), keeping the paths it was asked. */
async function countingServer(label: string): Promise<Counting> {
  const paths: string[] = [];
  const server = http.createServer((request, response) => {
    paths.push(request.url ?? '');
    const shown = (request.url ?? '').replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`);
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>${label}</title><h1>${label} page ${shown}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    paths,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('recorded navigation stays on the app (real Chromium, real @playwright/test)', () => {
  let browser: Browser;
  let app: Counting;
  let victim: Counting;
  let dir: string;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
    app = await countingServer('App');
    victim = await countingServer('Victim');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nightshift-app-path-'));
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await victim?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('replays and exports a two-slash path as a page of the app; a hostile check file is refused', async () => {
    const hop = `127.0.0.1:${victim.port}`;
    // What the browser reported after the evaluator opened `<app>//host/steal` and `<app>/\host/again`.
    const log = [
      navigationEntry(1, `${app.url}/${hop}/steal`),
      navigationEntry(2, `${app.url}\\${hop}/again`),
    ];
    const segment = recordSegment(log, 0, app.url);
    expect(segment.unrecordable).toBeUndefined();
    const check = RecordedCheck.parse({
      featureId: 'F-001',
      version: 1,
      recordedAt: '2026-01-01T00:00:00.000Z',
      origin: { runId: 'r-app-path', session: 1, reason: 'evaluate' },
      actions: segment.actions,
      expectations: [{ kind: 'text', text: `App page //${hop}/again` }],
    });
    expect(check.actions).toEqual([
      { kind: 'goto', path: `/.//${hop}/steal` },
      { kind: 'goto', path: `/.//${hop}/again` },
    ]);

    const replayed = await replayCheck(browser, check, { baseUrl: app.url });
    expect(replayed.failure).toBeUndefined();
    expect(replayed.ok).toBe(true);
    expect(app.paths).toEqual(expect.arrayContaining([`//${hop}/steal`, `//${hop}/again`]));

    // A committed check file written the old way is refused; forged past the schema, the replay refuses it.
    const old = { ...check, actions: [{ kind: 'goto', path: `//${hop}/steal` }] };
    expect(RecordedCheck.safeParse(old).success).toBe(false);
    const forged = await replayCheck(browser, old as RecordedCheck, { baseUrl: app.url });
    expect(forged.ok).toBe(false);
    expect(forged.failure?.message).toContain('is not a path on the app');

    // The exported spec under the real runner, baseURL on the app.
    const spec = generateSpec(check, 'Two-slash paths');
    expect(spec).toContain(`await page.goto('/.//${hop}/steal');`);
    fs.mkdirSync(path.join(dir, 'e2e'));
    fs.writeFileSync(path.join(dir, specPath('F-001')), spec);
    await writeSpecSupport(dir); // the fixtures module every exported spec imports
    fs.writeFileSync(
      path.join(dir, 'playwright.config.ts'),
      [
        "import { defineConfig } from '@playwright/test';",
        `export default defineConfig({ testDir: './e2e', use: { baseURL: '${app.url}', launchOptions: { executablePath: '${CHROMIUM}' } } });`,
        '',
      ].join('\n'),
    );
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
    const before = app.paths.length;
    const out = await promisify(execFile)(
      path.join(REPO, 'node_modules/.bin/playwright'),
      ['test', '--reporter=line'],
      { cwd: dir, env: { ...process.env, CI: '1' }, timeout: 180_000 },
    );
    expect(out.stdout).toContain('1 passed');
    expect(app.paths.slice(before)).toEqual(expect.arrayContaining([`//${hop}/steal`, `//${hop}/again`]));

    // Nothing ever reached the host named in the path.
    expect(victim.paths).toEqual([]);
  }, 240_000);
});
