import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { BrowserLaunchError, BrowserNotInstalledError } from '../../../workers/shared-chromium.js';
import { type RunningTodoApp, startTodoApp } from './todo-app.js';

const CHROMIUM = chromiumExecutable();

/** Pids of Chromium browser processes started by this test process. */
function chromiumChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm !== undefined && /chrom/i.test(comm))
    .map(([pid]) => Number(pid));
}

describe('browser pool', () => {
  let app: RunningTodoApp;
  let evidenceRoot: string;
  let pool: BrowserPool;

  beforeAll(async () => {
    app = await startTodoApp();
    evidenceRoot = await mkdtemp(path.join(tmpdir(), 'nightshift-pool-'));
    pool = createBrowserPool({ executablePath: CHROMIUM });
  });

  afterAll(async () => {
    await pool?.close();
    await app?.stop();
    if (evidenceRoot) await rm(evidenceRoot, { recursive: true, force: true });
  });

  it('launches once and gives every evaluation a fresh context', async () => {
    expect(pool.launches).toBe(0); // lazy: nothing launched before the first acquire

    const first = await pool.acquireContext({ evidenceDir: path.join(evidenceRoot, 'a'), trace: false });
    first.allowOrigin(app.origin);
    await first.page.goto(app.url);
    await first.context.addCookies([{ name: 'session', value: 'one', url: app.url }]);
    await first.page.evaluate(() => localStorage.setItem('remember', 'me'));
    expect(await first.page.evaluate(() => localStorage.getItem('remember'))).toBe('me');
    await first.close();

    for (const name of ['b', 'c']) {
      const next = await pool.acquireContext({ evidenceDir: path.join(evidenceRoot, name), trace: false });
      next.allowOrigin(app.origin);
      await next.page.goto(app.url);
      expect(await next.context.cookies()).toEqual([]);
      expect(await next.page.evaluate(() => localStorage.getItem('remember'))).toBeNull();
      expect(next.context).not.toBe(first.context);
      // The pre-warmed spare was handed out, not leaked: this evaluation's context is the only one open.
      expect(next.context.browser()!.contexts()).toEqual([next.context]);
      await next.close();
    }
    expect(pool.launches).toBe(1);
  });

  it('resolves relative URLs against baseURL and collects console messages and page errors', async () => {
    const evaluation = await pool.acquireContext({
      evidenceDir: path.join(evidenceRoot, 'console'),
      trace: false,
      baseURL: app.origin,
    });
    evaluation.allowOrigin(app.origin);
    // The spare was opened without a baseURL, so it was closed and a matching context made instead.
    expect(evaluation.context.browser()!.contexts()).toEqual([evaluation.context]);
    await evaluation.page.goto('/noisy');
    await evaluation.page.waitForTimeout(100); // the uncaught error is thrown from a timer
    expect(evaluation.consoleMessages).toEqual(
      expect.arrayContaining([
        expect.stringContaining('[warning] noisy page warning'),
        expect.stringContaining('[error] noisy page error'),
        '[pageerror] noisy page uncaught',
      ]),
    );
    await evaluation.close();
  });

  it('reaches nothing before the app is named, then only the app (the gate)', async () => {
    const blocked: string[] = [];
    const evaluation = await pool.acquireContext({
      evidenceDir: path.join(evidenceRoot, 'gate'),
      trace: false,
      onBlocked: (request) => blocked.push(`${request.method} ${request.target}`),
    });
    const refused = await evaluation.page.goto(app.url);
    expect(refused?.status()).toBe(403);
    expect(await evaluation.page.textContent('body')).toContain('no app is open yet');
    expect(blocked[0]).toBe(`GET ${app.url}`); // then the favicon, likewise refused
    expect(evaluation.consoleMessages.some((line) => line.startsWith(`[blocked] GET ${app.url}`))).toBe(true);
    evaluation.allowOrigin(app.origin);
    expect((await evaluation.page.goto(app.url))?.status()).toBe(200);
    expect(await evaluation.page.title()).toBe('Todos');
    // The same server under another name is another origin.
    const other = app.url.replace('127.0.0.1', 'localhost');
    expect((await evaluation.page.goto(other))?.status()).toBe(403);
    expect(blocked).toContain(`GET ${other}`);
    await evaluation.close();
  });

  it('saves a trace.zip on close and lists screenshots', async () => {
    const evidenceDir = path.join(evidenceRoot, 'traced');
    const evaluation = await pool.acquireContext({ evidenceDir, trace: true });
    evaluation.allowOrigin(app.origin);
    await evaluation.page.goto(app.url);
    await evaluation.page.screenshot({ path: path.join(evidenceDir, 'screenshot-001.png') });
    const evidence = await evaluation.close();
    expect(evidence.tracePath).toBe(path.join(evidenceDir, 'trace.zip'));
    const zip = await readFile(evidence.tracePath!);
    expect(zip.subarray(0, 2).toString('latin1')).toBe('PK');
    // DOM snapshots of the actions, no screencast (its frames took the same browser work 50–85 % more CPU).
    const events = zipEntry(zip, 'trace.trace');
    expect(events).toContain('"type":"frame-snapshot"');
    expect(events).not.toContain('"type":"screencast-frame"');
    expect(evidence.screenshots).toEqual([path.join(evidenceDir, 'screenshot-001.png')]);
    expect(await evaluation.close()).toEqual(evidence); // idempotent
  });

  it('relaunches a browser that was killed, and one that was closed underneath it', async () => {
    const before = pool.launches;
    const doomed = await pool.acquireContext({ evidenceDir: path.join(evidenceRoot, 'doomed'), trace: true });
    doomed.allowOrigin(app.origin);
    await doomed.page.goto(app.url);
    const pids = chromiumChildren();
    expect(pids.length).toBe(1);
    const disconnected = new Promise((resolve) => doomed.context.browser()!.once('disconnected', resolve));
    process.kill(pids[0]!, 'SIGKILL');
    await disconnected;
    const evidence = await doomed.close(); // does not throw; the trace could not be saved
    expect(evidence.tracePath).toBeUndefined();

    const revived = await pool.acquireContext({
      evidenceDir: path.join(evidenceRoot, 'revived'),
      trace: false,
    });
    revived.allowOrigin(app.origin);
    await revived.page.goto(app.url);
    expect(await revived.page.title()).toBe('Todos');
    expect(pool.launches).toBe(before + 1);

    await revived.context.browser()!.close();
    const again = await pool.acquireContext({ evidenceDir: path.join(evidenceRoot, 'again'), trace: false });
    again.allowOrigin(app.origin);
    await again.page.goto(app.url);
    expect(pool.launches).toBe(before + 2);
    await again.close();
  });

  it('refuses to acquire after close', async () => {
    const closedPool = createBrowserPool({ executablePath: CHROMIUM });
    await closedPool.close();
    await expect(
      closedPool.acquireContext({ evidenceDir: evidenceRoot, trace: false }),
    ).rejects.toBeInstanceOf(BrowserLaunchError);
    expect(closedPool.launches).toBe(0);
  });

  it('says how to install Chromium when the executable is missing', async () => {
    const missing = createBrowserPool({ executablePath: path.join(evidenceRoot, 'no-such-chromium') });
    const error = await missing
      .acquireContext({ evidenceDir: evidenceRoot, trace: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrowserNotInstalledError);
    expect((error as BrowserNotInstalledError).code).toBe('BROWSER_NOT_INSTALLED');
    expect((error as BrowserNotInstalledError).describe()).toMatch(/apt-get install -y chromium/);
    expect((error as BrowserNotInstalledError).describe()).toMatch(/NIGHTSHIFT_CHROMIUM/);
    await missing.close();
  });
});

/** One entry of a zip archive, as text (found through the central directory; stored or deflated; no ZIP64). */
function zipEntry(zip: Buffer, name: string): string {
  const end = zip.lastIndexOf(Buffer.from('PK\x05\x06', 'latin1'));
  if (end < 0) throw new Error('not a zip: no end of central directory');
  let at = zip.readUInt32LE(end + 16);
  for (let entry = zip.readUInt16LE(end + 10); entry > 0; entry -= 1) {
    const nameLength = zip.readUInt16LE(at + 28);
    if (zip.subarray(at + 46, at + 46 + nameLength).toString('utf8') === name) {
      const local = zip.readUInt32LE(at + 42);
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + zip.readUInt32LE(at + 20));
      const method = zip.readUInt16LE(at + 10);
      if (method !== 0 && method !== 8) throw new Error(`${name} is compressed with method ${method}`);
      return (method === 8 ? inflateRawSync(data) : data).toString('utf8');
    }
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  throw new Error(`the zip holds no ${name}`);
}
