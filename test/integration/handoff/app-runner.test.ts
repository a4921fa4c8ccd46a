import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answersHttp, freePort, startApp } from '../../../handoff/app-runner.js';
import { isRunning } from '../../../handoff/proc.js';
import { tempDir } from './helpers.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const server = `node -e "require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')"`;

async function workspaceWith(script: string) {
  const temp = tempDir('ns-app-');
  cleanups.push(temp.cleanup);
  await writeFile(path.join(temp.dir, 'init.sh'), script, { mode: 0o755 });
  await mkdir(path.join(temp.dir, 'pids'));
  return { dir: temp.dir, logFile: path.join(temp.dir, 'app.log') };
}

async function pidFrom(dir: string, name: string): Promise<number> {
  return Number((await readFile(path.join(dir, 'pids', name), 'utf8')).trim());
}

describe('startApp', () => {
  it('starts init.sh, waits until the app answers, and stops it with every child gone', async () => {
    const { dir, logFile } = await workspaceWith(
      `#!/bin/bash\necho "installing"\n${server} &\necho $! > pids/server.pid\nsleep 600 &\necho $! > pids/sleeper.pid\nwait\n`,
    );
    const port = await freePort();
    const result = await startApp({ workspace: dir, port, logFile, readyTimeoutMs: 30_000 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    cleanups.push(() => result.app.stop());
    expect(result.app.url).toBe(`http://127.0.0.1:${port}/`);
    expect(await answersHttp(result.app.url)).toBe(true);
    const pids = [result.app.pid, await pidFrom(dir, 'server.pid'), await pidFrom(dir, 'sleeper.pid')];
    for (const pid of pids) expect(await isRunning(pid)).toBe(true);
    await result.app.stop();
    for (const pid of pids) expect(await isRunning(pid)).toBe(false);
    expect(await answersHttp(result.app.url)).toBe(false);
    expect(await readFile(logFile, 'utf8')).toContain('installing');
  });

  it('accepts a script that backgrounds the app and exits 0, and still stops the app', async () => {
    const { dir, logFile } = await workspaceWith(
      `#!/bin/bash\n${server} &\necho $! > pids/server.pid\nexit 0\n`,
    );
    const result = await startApp({
      workspace: dir,
      port: await freePort(),
      logFile,
      readyTimeoutMs: 30_000,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    cleanups.push(() => result.app.stop());
    const serverPid = await pidFrom(dir, 'server.pid');
    expect(await isRunning(serverPid)).toBe(true);
    await result.app.stop();
    expect(await isRunning(serverPid)).toBe(false);
  });

  it('gives a blocked reason with the exit code and last lines when init.sh fails', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `echo "line ${i + 1}"`).join('\n');
    const { dir, logFile } = await workspaceWith(
      `#!/bin/bash\n${lines}\necho "npm ERR! missing script" >&2\nexit 3\n`,
    );
    const result = await startApp({
      workspace: dir,
      port: await freePort(),
      logFile,
      readyTimeoutMs: 30_000,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.exitCode).toBe(3);
    expect(result.lastLines).toHaveLength(20);
    expect(result.lastLines.at(-1)).toBe('npm ERR! missing script');
    expect(result.lastLines[0]).toBe('line 12');
    expect(result.reason).toContain('init.sh exited with code 3');
    expect(result.reason).toContain('npm ERR! missing script');
  });

  it('times out when the app never listens, and kills what the script started', async () => {
    const { dir, logFile } = await workspaceWith(
      `#!/bin/bash\necho "starting"\nsleep 600 &\necho $! > pids/sleeper.pid\nwait\n`,
    );
    const port = await freePort();
    const result = await startApp({ workspace: dir, port, logFile, readyTimeoutMs: 1_500, stopGraceMs: 500 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.exitCode).toBeNull();
    expect(result.reason).toContain(`did not answer HTTP on port ${port} within 2 s`);
    expect(result.lastLines).toEqual(['starting']);
    expect(await isRunning(await pidFrom(dir, 'sleeper.pid'))).toBe(false);
  });

  it('kills with SIGKILL after the grace period a process that ignores SIGTERM', async () => {
    const { dir, logFile } = await workspaceWith(
      `#!/bin/bash\ntrap '' TERM\n${server.replace("require('http')", "process.on('SIGTERM', () => {}), require('http')")} &\necho $! > pids/server.pid\nwait\n`,
    );
    const result = await startApp({ workspace: dir, port: await freePort(), logFile, stopGraceMs: 300 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    cleanups.push(() => result.app.stop());
    const serverPid = await pidFrom(dir, 'server.pid');
    await result.app.stop();
    expect(await isRunning(serverPid)).toBe(false);
    expect(await isRunning(result.app.pid)).toBe(false);
  });
});
