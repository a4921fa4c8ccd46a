// The exit watchdog: a process kept alive after its command ended exits with the command's code, naming what was
// open; one with nothing open exits at once, never waiting for the watchdog.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { armExitWatchdog } from '../../../cli/exit-watchdog.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** What the child leaves open after arming the watchdog for `delayMs`: nothing, a listening server or an interval. */
type LeftOpen = 'nothing' | 'server' | 'interval';

/** A child process that arms the watchdog with exit code 3 (its own exit code left unset) and leaves `open`. */
function child(delayMs: number, open: LeftOpen) {
  const leave = {
    nothing: '',
    server: `(await import('node:net')).createServer().listen(0, '127.0.0.1');`,
    interval: 'setInterval(() => undefined, 1_000);',
  }[open];
  const program = [
    `const { armExitWatchdog } = await import(${JSON.stringify(path.join(ROOT, 'cli/exit-watchdog.ts'))});`,
    leave,
    `armExitWatchdog(3, undefined, ${delayMs});`,
  ].join('\n');
  const started = Date.now();
  const spawned = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  spawned.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise<{ code: number | null; stderr: string; ms: number }>((resolve) =>
    spawned.once('exit', (code) => resolve({ code, stderr, ms: Date.now() - started })),
  );
}

describe('the exit watchdog', () => {
  it('ends a process a server keeps alive, with the code it was armed with, naming what is open', async () => {
    const ended = await child(1_000, 'server');
    expect(ended.code, ended.stderr).toBe(3);
    expect(ended.stderr).toMatch(
      /the command ended 1 s ago but the process was kept alive \(open: .*TCPServerWrap/,
    );
    expect(ended.stderr).toContain('This is a bug: please report it with the log.');
  }, 60_000);

  it('names a leaked interval (its own timer is never listed: Node lists only what is ref’d)', async () => {
    const ended = await child(1_000, 'interval');
    expect(ended.code, ended.stderr).toBe(3);
    expect(ended.stderr).toMatch(/\(open: [^)]*Timeout/);
  }, 60_000);

  it('never keeps a process alive itself: with nothing open it exits long before its delay, saying nothing', async () => {
    const ended = await child(600_000, 'nothing');
    expect(ended.code).toBe(0);
    expect(ended.stderr).toBe('');
    expect(ended.ms).toBeLessThan(30_000);
  }, 60_000);

  it('counts the open resources by kind', async () => {
    const lines: string[] = [];
    const exits: number[] = [];
    armExitWatchdog(
      1,
      {
        write: (text) => lines.push(text),
        exit: (code) => exits.push(code),
        openResources: () => ['TCPSocketWrap', 'Timeout', 'TCPSocketWrap', 'FSReqCallback'],
      },
      0,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(exits).toEqual([1]);
    expect(lines.join('')).toContain('(open: TCPSocketWrap ×2, Timeout, FSReqCallback)');
  });
});
