import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSource } from '../../../evaluation/browser-source.js';
import { KeptReplayContexts } from '../../../evaluation/kept-replay-contexts.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { recordedCheck } from './check-builder.js';

/**
 * One version of an app: its page loads `/app.js`, which the browser may keep for an hour (as many apps' bundles
 * say), and shows the version it came with and what local storage and cookies it finds.
 */
function appVersion(version: string, port = 0): Promise<{ server: Server; url: string; port: number }> {
  const server = createServer((req, res) => {
    if (req.url === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600' });
      res.end(`document.getElementById('v').textContent = 'version ${version}';`);
      return;
    }
    const body = `<p id="v">no script</p><p id="s"></p><script src="/app.js"></script><script>
document.getElementById('s').textContent = 'storage=' + (localStorage.getItem('k') ?? 'none') + ' cookie=' + (document.cookie || 'none');
localStorage.setItem('k', '${version}'); document.cookie = 'k=${version}; path=/';
</script>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`<!doctype html><title>app</title>${body}`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${bound}/`, port: bound });
    });
  });
}

const check = recordedCheck;

const opens = (version: string) =>
  check('F-001', {
    actions: [{ kind: 'goto', path: '/' }],
    expectations: [
      { kind: 'text', text: `version ${version}` },
      { kind: 'text', text: 'storage=none cookie=none' },
    ],
  });

describe('replay contexts kept from one app to the next (real Chromium)', () => {
  let pool: BrowserPool;
  let acquired = 0;
  let source: BrowserSource;

  beforeAll(() => {
    pool = createBrowserPool();
    source = {
      acquireContext: (options) => {
        acquired += 1;
        return pool.acquireContext(options);
      },
    };
  });
  afterAll(async () => {
    await pool.close();
  });

  it('lends the same context to the next app with nothing of the last one: its files, storage and cookies', async () => {
    const kept = new KeptReplayContexts(source, { keep: 1, idleCloseMs: 60_000 });
    const one = await appVersion('one');
    const first = await kept.lend(one.url, { evidenceDir: '/tmp/ns-kept-contexts-test' });
    expect(await first.replay(opens('one'))).toMatchObject({ ok: true });
    await first.release();
    await new Promise<void>((resolve) => one.server.close(() => resolve()));

    // The next app answers on the same port with other files: a cached /app.js would show "version one".
    const two = await appVersion('two', one.port);
    try {
      const second = await kept.lend(two.url, { evidenceDir: '/tmp/ns-kept-contexts-test' });
      const result = await second.replay(opens('two'));
      expect(result, JSON.stringify(result.failure)).toMatchObject({ ok: true });
      await second.release();
      expect(acquired).toBe(1);
    } finally {
      await kept.closeIdle();
      two.server.close();
    }
  });

  it('keeps no more contexts waiting than its limit, and lends a waiting one before opening another', async () => {
    const before = acquired;
    const kept = new KeptReplayContexts(source, { keep: 1, idleCloseMs: 60_000 });
    const app = await appVersion('three');
    try {
      const [a, b] = await Promise.all([
        kept.lend(app.url, { evidenceDir: '/tmp/ns-kept-contexts-test' }),
        kept.lend(app.url, { evidenceDir: '/tmp/ns-kept-contexts-test' }),
      ]);
      await Promise.all([a.release(), b.release()]);
      expect(acquired - before).toBe(2);
      const c = await kept.lend(app.url, { evidenceDir: '/tmp/ns-kept-contexts-test' });
      expect(acquired - before).toBe(2);
      expect(await c.replay(opens('three'))).toMatchObject({ ok: true });
      await c.release();
    } finally {
      await kept.closeIdle();
      app.server.close();
    }
  });
});
