import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandboxInfo } from '../../../box/bubblewrap.js';
import { isRunning } from '../../../box/proc.js';
import { answersHttp, freePort, type StartAppOptions, startApp } from '../../../handoff/app-runner.js';
import { requirement } from '../../requirements.js';
import { pidsWithToken, sleepToken } from '../tools/helpers.js';
import { tempDir } from './helpers.js';

const info = await sandboxInfo();
// Skipped without bubblewrap on a developer's machine; on CI its absence fails the suite (test/requirements.ts).
const bubblewrap = requirement('bubblewrap', info.bubblewrap, info.reason ?? 'not found');
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server on $PORT whose command line carries `token`, so the host can find it whatever its pid inside. */
const server = (token: string, onTerm = '') =>
  `node -e "${onTerm}require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')" ${token}`;

async function workspaceWith(script: string) {
  const temp = tempDir('ns-app-');
  cleanups.push(temp.cleanup);
  await writeFile(path.join(temp.dir, 'init.sh'), script, { mode: 0o755 });
  await mkdir(path.join(temp.dir, 'pids'));
  return { dir: temp.dir, logFile: path.join(temp.dir, 'app.log') };
}

async function start(options: StartAppOptions) {
  const result = await startApp(options);
  if (result.ok) cleanups.push(() => result.app.stop());
  return result;
}

describe.skipIf(bubblewrap.skip)('startApp in the box', () => {
  beforeAll(() => bubblewrap.check());
  it('starts init.sh, waits until the app answers, and stops it with every child gone', async () => {
    const [serverToken, sleeper] = [`srv-${sleepToken()}`, sleepToken()];
    const { dir, logFile } = await workspaceWith(
      `#!/bin/bash\necho "installing"\n${server(serverToken)} &\nsleep ${sleeper} &\nwait\n`,
    );
    const port = await freePort();
    const result = await start({ workspace: dir, port, logFile, readyTimeoutMs: 30_000 });
    expect(result.ok, result.ok ? '' : result.reason).toBe(true);
    if (!result.ok) return;
    expect(result.app.url).toBe(`http://127.0.0.1:${port}/`);
    expect(result.app.socketPath).toMatch(/app\.sock$/);
    expect(await answersHttp(result.app.url)).toBe(true);
    expect(pidsWithToken(serverToken)).toHaveLength(1);
    expect(pidsWithToken(sleeper)).toHaveLength(1);
    expect(isRunning(result.app.pid as number)).toBe(true);
    await result.app.stop();
    expect(pidsWithToken(serverToken)).toEqual([]);
    expect(pidsWithToken(sleeper)).toEqual([]);
    expect(isRunning(result.app.pid as number)).toBe(false);
    expect(await answersHttp(result.app.url)).toBe(false);
    expect(await readFile(logFile, 'utf8')).toContain('installing');
  });

  it('picks a free port itself when none is given', async () => {
    const { dir, logFile } = await workspaceWith(`#!/bin/bash\nexec ${server(`srv-${sleepToken()}`)}\n`);
    const result = await start({ workspace: dir, logFile, readyTimeoutMs: 30_000 });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('accepts a script that backgrounds the app and exits 0, and still stops the app', async () => {
    const token = `srv-${sleepToken()}`;
    const { dir, logFile } = await workspaceWith(`#!/bin/bash\n${server(token)} &\nexit 0\n`);
    const result = await start({ workspace: dir, port: await freePort(), logFile, readyTimeoutMs: 30_000 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(pidsWithToken(token)).toHaveLength(1);
    await result.app.stop();
    expect(pidsWithToken(token)).toEqual([]);
  });

  it('gives a blocked reason with the exit code and last lines when init.sh fails', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `echo "line ${i + 1}"`).join('\n');
    const { dir, logFile } = await workspaceWith(
      `#!/bin/bash\n${lines}\necho "npm ERR! missing script" >&2\nexit 3\n`,
    );
    const result = await start({ workspace: dir, port: await freePort(), logFile, readyTimeoutMs: 30_000 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.exitCode).toBe(3);
    expect(result.lastLines).toHaveLength(40);
    expect(result.lastLines.at(-1)).toBe('npm ERR! missing script');
    expect(result.lastLines[0]).toBe('line 12');
    expect(result.reason).toContain('init.sh exited with code 3');
    expect(result.reason).toContain('npm ERR! missing script');
  });

  it('times out when the app never listens, and kills what the script started', async () => {
    const sleeper = sleepToken();
    const { dir, logFile } = await workspaceWith(`#!/bin/bash\necho "starting"\nsleep ${sleeper} &\nwait\n`);
    const port = await freePort();
    const result = await start({ workspace: dir, port, logFile, readyTimeoutMs: 1_500, stopGraceMs: 500 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.exitCode).toBeNull();
    expect(result.reason).toContain(`did not answer HTTP on port ${port} within 2 s`);
    expect(result.lastLines).toEqual(['starting']);
    expect(pidsWithToken(sleeper)).toEqual([]);
  });

  it('kills with SIGKILL after the grace period an app and an init.sh that ignore SIGTERM', async () => {
    const token = `srv-${sleepToken()}`;
    const { dir, logFile } = await workspaceWith(
      `#!/bin/bash\ntrap '' TERM\n${server(token, "process.on('SIGTERM', () => {}), ")} &\nwait\n`,
    );
    const result = await start({ workspace: dir, port: await freePort(), logFile, stopGraceMs: 300 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(pidsWithToken(token)).toHaveLength(1);
    await result.app.stop();
    expect(pidsWithToken(token)).toEqual([]);
    expect(isRunning(result.app.pid as number)).toBe(false);
  });
});

describe('startApp without the box (sandbox: none, the explicit opt-out)', () => {
  it('runs init.sh as a plain child with a scrubbed environment, and stops every child', async () => {
    const { dir, logFile } = await workspaceWith(
      `#!/bin/bash\necho "home=$HOME key=\${ANTHROPIC_API_KEY:-unset}"\n${server('srv-none')} &\necho $! > pids/server.pid\nsleep 600 &\necho $! > pids/sleeper.pid\nwait\n`,
    );
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-app-runner-LEAK';
    cleanups.push(() => {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    });
    const port = await freePort();
    const result = await start({ workspace: dir, port, logFile, sandbox: 'none', readyTimeoutMs: 30_000 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.app.url).toBe(`http://127.0.0.1:${port}/`);
    expect(result.app.socketPath).toBeUndefined();
    const pid = async (name: string) => Number((await readFile(path.join(dir, 'pids', name), 'utf8')).trim());
    const pids = [await pid('server.pid'), await pid('sleeper.pid')];
    for (const p of pids) expect(isRunning(p)).toBe(true);
    await result.app.stop();
    for (const p of pids) expect(isRunning(p)).toBe(false);
    const log = await readFile(logFile, 'utf8');
    expect(log).toContain('key=unset');
    expect(log).not.toContain('LEAK');
    expect(log).toMatch(/home=\/tmp\/nightshift-sh-[^/]+\/home/);
  });
});
