import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CollectedRequest, runCollected, stopSpawnHelper } from '../../../core/spawn-helper.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function shell(script: string, env: Record<string, string> = {}): CollectedRequest {
  return {
    binary: '/bin/sh',
    args: ['-c', script],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    detached: true,
  };
}

/** The parent pid of process `pid` (from /proc). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

describe('the process helper', () => {
  afterEach(async () => {
    await stopSpawnHelper();
  });

  it('starts the process in the helper, not in the caller, with exactly the given environment', async () => {
    const result = await runCollected(
      shell('echo "$PPID $NS_PROBE [$HOME]"; echo oops >&2; exit 3', { NS_PROBE: 'x1' }),
    );
    const [ppid, probe, home] = result.stdout.trim().split(' ');
    expect(Number(ppid)).not.toBe(process.pid);
    expect(parentOf(Number(ppid))).toBe(process.pid);
    // HOME is the caller's, not the request's: it must not reach the process.
    expect([probe, home]).toEqual(['x1', '[]']);
    expect(result).toMatchObject({ code: 3, signal: null, stderr: 'oops\n' });
  });

  it('answers many requests at once, each with its own output', async () => {
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        runCollected(shell(`printf 'n%s' ${index}; sleep 0.0${index % 5}`)),
      ),
    );
    expect(results.map((result) => result.stdout)).toEqual(results.map((_, index) => `n${index}`));
  });

  it('runs git as the harness does and keeps binary-safe UTF-8 output', async () => {
    const result = await runCollected({
      binary: 'git',
      args: ['--version'],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
      detached: true,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^git version /);
    const text = await runCollected(shell("printf 'caf\\303\\251 \\342\\234\\223'"));
    expect(text.stdout).toBe('café ✓');
  });

  it('reports a binary that does not exist as an error, not an exit code', async () => {
    const result = await runCollected({ ...shell(''), binary: '/nonexistent/ns-no-such-binary' });
    expect(result.error).toMatch(/ENOENT/);
  });

  it('fails the requests in flight when the helper dies, and starts a new helper for the next', async () => {
    const running = runCollected(shell('echo $PPID; sleep 5'));
    // The helper is the parent of the shell: find it and kill it while the shell sleeps.
    const probe = await runCollected(shell('echo $PPID'));
    process.kill(Number(probe.stdout.trim()), 'SIGKILL');
    await expect(running).rejects.toThrow(
      /process helper (exited|disconnected) before the process it started had finished/,
    );
    const after = await runCollected(shell('echo again $PPID'));
    expect(after.stdout).toMatch(/^again \d+/);
    expect(after.stdout.trim().split(' ')[1]).not.toBe(probe.stdout.trim());
  });

  it('does not keep its caller alive once nothing is in flight', async () => {
    const program = [
      "const { runCollected } = await import('./core/spawn-helper.ts');",
      "const result = await runCollected({ binary: 'git', args: ['--version'], cwd: '.', env: { PATH: process.env.PATH }, detached: true });",
      'console.log(result.stdout.trim());',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(output).toMatch(/git version/);
  }, 60_000);
});
