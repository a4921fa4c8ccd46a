/**
 * The box's bridges with real bubblewrap, real npm and real sockets: installs through the egress proxy
 * under `registries` (a loopback stand-in registry on the allow list, another loopback server refused),
 * forwards from a bash box into a running app box, and the harness's files read-only in the app box.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../agent/tools/bash.js';
import type { BoxForward } from '../../../box/box.js';
import { sandboxInfo } from '../../../box/bubblewrap.js';
import type { EgressRefusal } from '../../../box/egress-proxy.js';
import { NO_NETWORK } from '../../../box/network-policy.js';
import { runSandboxed } from '../../../box/run.js';
import { startApp } from '../../../handoff/app-runner.js';
import { requirement } from '../../requirements.js';
import {
  boxRequest,
  contextFor,
  makeWorkspace,
  pidsWithToken,
  sleepToken,
  textOf,
} from '../tools/helpers.js';
import { startStandInRegistry } from './stand-in-registry.js';

const info = await sandboxInfo();
// Skipped without bubblewrap on a developer's machine; on CI its absence fails the suite (test/requirements.ts).
const bubblewrap = requirement('bubblewrap', info.bubblewrap, info.reason ?? 'not found');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A loopback server on the host that counts what reaches it. */
async function countingServer(): Promise<{ port: number; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((_request, response) => {
    hits++;
    response.end('reached-the-host');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as AddressInfo).port, hits: () => hits };
}

function workspace() {
  const ws = makeWorkspace();
  cleanups.push(ws.cleanup);
  return ws;
}

describe.skipIf(bubblewrap.skip)('the box', () => {
  beforeAll(() => bubblewrap.check());
  it('installs a dependency from a stand-in registry on the allow list; a loopback server not on it is refused', async () => {
    const registry = await startStandInRegistry(
      'nightshift-standin',
      'module.exports = "from the stand-in";\n',
    );
    cleanups.push(registry.close);
    const other = await countingServer();
    const ws = workspace();
    fs.writeFileSync(path.join(ws.workspace, 'package.json'), '{"name":"app","version":"1.0.0"}\n');
    const refusals: EgressRefusal[] = [];
    const bash = createBashTool({
      sandbox: 'bubblewrap',
      network: 'registries',
      allowHosts: [`127.0.0.1:${registry.port}`],
      onEgressRefused: (refusal) => refusals.push(refusal),
    });
    const out = textOf(
      await bash.execute(
        {
          command:
            `npm install --no-audit --no-fund --registry http://host.nightshift.internal:${registry.port}/ nightshift-standin 2>&1 | tail -3; ` +
            `node -e "console.log('required:', require('nightshift-standin'))"; ` +
            `curl -s -m 5 http://host.nightshift.internal:${other.port}/; echo " other=$?"`,
          timeout_ms: 180_000,
        },
        contextFor(ws.workspace),
      ),
    );
    expect(out).toContain('required: from the stand-in');
    expect(registry.requests).toContain('GET /nightshift-standin');
    expect(registry.requests).toContain('GET /nightshift-standin/-/nightshift-standin-1.0.0.tgz');
    expect(fs.existsSync(path.join(ws.workspace, 'node_modules/nightshift-standin/index.js'))).toBe(true);
    expect(other.hits()).toBe(0);
    expect(out).toContain(
      `127.0.0.1:${other.port} is not allowed by the sandbox's network policy "registries"`,
    );
    expect(refusals).toEqual([
      expect.objectContaining({ host: '127.0.0.1', port: other.port, method: 'GET' }),
    ]);
  }, 240_000);

  it.skipIf(!process.env.NIGHTSHIFT_TEST_REAL_REGISTRY)(
    'installs from the real npm registry through the proxy (NIGHTSHIFT_TEST_REAL_REGISTRY=1)',
    async () => {
      const ws = workspace();
      fs.writeFileSync(path.join(ws.workspace, 'package.json'), '{"name":"app","version":"1.0.0"}\n');
      const bash = createBashTool({ sandbox: 'bubblewrap', network: 'registries' });
      const out = textOf(
        await bash.execute(
          {
            command:
              "npm install --no-audit --no-fund is-number@7.0.0 2>&1 | tail -2; node -e \"console.log('is 5:', require('is-number')(5))\"",
            timeout_ms: 300_000,
          },
          contextFor(ws.workspace),
        ),
      );
      expect(out).toContain('is 5: true');
    },
    360_000,
  );

  it('forwards a port of a bash box to a running app box, and only there', async () => {
    const ws = workspace();
    fs.writeFileSync(
      path.join(ws.workspace, 'init.sh'),
      `#!/bin/bash\nexec node -e "require('http').createServer((q, s) => s.end('app says ' + q.url)).listen(Number(process.env.PORT), '127.0.0.1')"\n`,
    );
    const started = await startApp({
      workspace: ws.workspace,
      logFile: path.join(ws.root, 'app.log'),
      readyTimeoutMs: 30_000,
    });
    if (!started.ok) throw new Error(started.reason);
    cleanups.push(() => started.app.stop());
    const socketPath = started.app.socketPath as string;
    const run = (command: string, forwards = [{ port: 4555, socketPath }]) =>
      runSandboxed(boxRequest(info, ws.workspace, command, { network: NO_NETWORK, forwards }));
    const across = await run(
      'curl -s -m 5 http://127.0.0.1:4555/first; echo; curl -s -m 5 http://localhost:4555/second',
    );
    expect(across.stdout.text).toContain('app says /first');
    expect(across.stdout.text).toContain('app says /second');
    // The browser's port on the host is not the box's: without the forward nothing answers there.
    const port = new URL(started.app.url).port;
    const without = await run(`curl -s -m 5 http://127.0.0.1:${port}/; echo " rc=$?"`, []);
    expect(without.stdout.text).toContain('rc=7');
    // The bash tool asks for its forwards before each command: one added mid-session works from then on.
    const live: BoxForward[] = [];
    const bash = createBashTool({ sandbox: 'bubblewrap', forwards: () => live });
    const probe = () =>
      bash.execute(
        { command: 'curl -s -m 5 http://127.0.0.1:4556/tool; echo " rc=$?"' },
        contextFor(ws.workspace),
      );
    expect(textOf(await probe())).toContain('rc=7');
    live.push({ port: 4556, socketPath });
    expect(textOf(await probe())).toContain('app says /tool rc=0');
    await started.app.stop();
    const after = await run('curl -s -m 5 http://127.0.0.1:4555/; echo " rc=$?"');
    expect(after.stdout.text).not.toContain('app says');
  }, 120_000);

  it('keeps .git, the feature list and .nightshift/ read-only for the app, even before .nightshift/ exists', async () => {
    const ws = workspace();
    fs.mkdirSync(path.join(ws.workspace, '.git'));
    fs.writeFileSync(path.join(ws.workspace, '.git', 'config'), '[core]\n');
    fs.writeFileSync(path.join(ws.workspace, 'feature_list.json'), '[]\n');
    fs.writeFileSync(
      path.join(ws.workspace, 'init.sh'),
      [
        '#!/bin/bash',
        'echo "[filter]" >> .git/config; echo "git=$?"',
        'echo "{}" > feature_list.json; echo "list=$?"',
        'mkdir -p .nightshift/feedback; echo "harness=$?"',
        'echo made > app-made.txt',
        `exec node -e "require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT))"`,
      ].join('\n'),
    );
    const logFile = path.join(ws.root, 'app.log');
    const started = await startApp({ workspace: ws.workspace, logFile, readyTimeoutMs: 30_000 });
    if (!started.ok) throw new Error(started.reason);
    await started.app.stop();
    const log = fs.readFileSync(logFile, 'utf8');
    expect(log).toMatch(/git=[1-9]/);
    expect(log).toMatch(/list=[1-9]/);
    expect(log).toMatch(/harness=[1-9]/);
    expect(log).toContain('Read-only file system');
    expect(fs.readFileSync(path.join(ws.workspace, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(fs.readFileSync(path.join(ws.workspace, 'feature_list.json'), 'utf8')).toBe('[]\n');
    expect(fs.readFileSync(path.join(ws.workspace, 'app-made.txt'), 'utf8')).toBe('made\n');
    // The placeholder that kept .nightshift/ from being created is gone from the host.
    expect(fs.existsSync(path.join(ws.workspace, '.nightshift'))).toBe(false);
  }, 60_000);

  it('kills a daemon that double-forked out of the app box at stop', async () => {
    const ws = workspace();
    const token = sleepToken();
    fs.writeFileSync(
      path.join(ws.workspace, 'init.sh'),
      [
        '#!/bin/bash',
        `( setsid bash -c 'nohup sleep ${token} >/dev/null 2>&1 &' & )`,
        `exec node -e "require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT))"`,
      ].join('\n'),
    );
    const started = await startApp({ workspace: ws.workspace, logFile: path.join(ws.root, 'app.log') });
    if (!started.ok) throw new Error(started.reason);
    expect(pidsWithToken(token)).toHaveLength(1);
    await started.app.stop();
    expect(pidsWithToken(token)).toEqual([]);
  }, 60_000);
});
