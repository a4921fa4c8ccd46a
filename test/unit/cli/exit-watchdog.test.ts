// The exit watchdog: a process kept alive after its command ended exits with the command's code, naming what was
// open; one with nothing open exits at once, never waiting for the watchdog.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { armExitWatchdog } from '../../../cli/exit-watchdog.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** A child process that sets its exit code, arms the watchdog (`delayMs`) and, with `leaveOpen`, leaves a server listening. */
function child(delayMs: number, leaveOpen: boolean) {
  const program = [
    `const { armExitWatchdog } = await import(${JSON.stringify(path.join(ROOT, 'cli/exit-watchdog.ts'))});`,
    leaveOpen ? `(await import('node:net')).createServer().listen(0, '127.0.0.1');` : '',
    `process.exitCode = 3;`,
    `armExitWatchdog(3, undefined, ${delayMs});`,
  ].join('\n');
  const started = Date.now();
  const process_ = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  process_.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise<{ code: number | null; stderr: string; ms: number }>((resolve) =>
    process_.once('exit', (code) => resolve({ code, stderr, ms: Date.now() - started })),
  );
}

describe('the exit watchdog', () => {
  it('ends a process something keeps alive, with the command exit code, naming what is open', async () => {
    const ended = await child(300, true);
    expect(ended.code).toBe(3);
    expect(ended.stderr).toMatch(
      /the command ended 0 s ago but the process was kept alive \(open: .*TCPServerWrap/,
    );
    expect(ended.stderr).toContain('This is a bug: please report it with the log.');
  }, 60_000);

  it('never keeps a process alive itself: with nothing open it exits long before its delay, saying nothing', async () => {
    const ended = await child(600_000, false);
    expect(ended.code).toBe(3);
    expect(ended.stderr).toBe('');
  }, 60_000);

  it('counts the open resources by kind and leaves out its own timer', () => {
    const lines: string[] = [];
    const exits: number[] = [];
    const timer = armExitWatchdog(
      1,
      {
        write: (text) => lines.push(text),
        exit: (code) => exits.push(code),
        openResources: () => ['TCPSocketWrap', 'Timeout', 'TCPSocketWrap', 'FSReqCallback'],
      },
      0,
    );
    return new Promise<void>((resolve) => {
      setTimeout(() => {
        clearTimeout(timer);
        expect(exits).toEqual([1]);
        expect(lines.join('')).toContain('(open: TCPSocketWrap ×2, FSReqCallback)');
        resolve();
      }, 50);
    });
  });
});
