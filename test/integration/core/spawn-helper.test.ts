import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CollectedRequest,
  runCollected,
  spawnHelperSetting,
  startSpawnHelper,
  stopSpawnHelper,
} from '../../../core/spawn-helper.js';
import { pythonLaunch } from '../../../core/spawn-helper-programs.js';
import { runGitProcess } from '../../../handoff/git-process.js';

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

/** The parent pid and process group of process `pid` (fields 4 and 5 of /proc/<pid>/stat). */
function statOf(pid: number): { parent: number; group: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { parent: Number(fields[1]), group: Number(fields[2]) };
}

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !condition(); tries++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (!condition()) throw new Error('timed out waiting');
}

function parentOf(pid: number): number {
  return statOf(pid).parent;
}

// Each behaviour under both helper programs: `on` runs the Python one where Python 3 is installed, `node` the Node one.
describe.each(['on', 'node'] as const)('the process helper (NIGHTSHIFT_SPAWN_HELPER=%s)', (setting) => {
  beforeEach(() => {
    process.env.NIGHTSHIFT_SPAWN_HELPER = setting;
  });
  afterEach(async () => {
    delete process.env.NIGHTSHIFT_SPAWN_HELPER;
    await stopSpawnHelper();
  });

  // scripts/setup.sh (the README's set-up) and the image install Python 3: without it `on` would fall back to the
  // Node program and this suite would test that twice, so a missing Python fails here instead of being skipped.
  it('runs the program the setting names', async () => {
    if (setting === 'on')
      expect(pythonLaunch(), 'Python 3.10+ at /usr/bin/python3 (scripts/setup.sh)').toBeDefined();
    const result = await runCollected(shell('echo $PPID'));
    const helperBinary = realpathSync(`/proc/${result.stdout.trim()}/exe`);
    expect(path.basename(helperBinary)).toMatch(setting === 'on' ? /^python3/ : /^node/);
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

  it('runs git as the harness does and decodes its output as UTF-8', async () => {
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

  it('puts the helper and each process in process groups of their own (a Ctrl-C to the caller reaches neither)', async () => {
    const result = await runCollected(shell('echo $$ $PPID $(cut -d " " -f 5 /proc/$$/stat)'));
    const [own, helper, ownGroup] = result.stdout.trim().split(' ').map(Number) as [number, number, number];
    expect(ownGroup).toBe(own);
    expect(statOf(helper).group).toBe(helper);
    expect([ownGroup, helper]).not.toContain(statOf(process.pid).group);
  });

  it('gives git the same outcomes through the helper as started directly', async () => {
    const outcomes = async () => {
      const env = { PATH: process.env.PATH ?? '' };
      const ask = (args: string[]) =>
        runGitProcess({ binary: 'git', args, cwd: ROOT, env }).then(
          (out) => ({ ok: true, out: out.trim().slice(0, 12) }),
          (error: Error) => ({ ok: false, out: error.message.split('\n')[0]?.slice(0, 40) }),
        );
      return [
        await ask(['rev-parse', '--verify', '-q', 'refs/heads/ns-no-such-branch']),
        await ask(['no-such-subcommand']),
        await ask(['rev-parse', '--is-inside-work-tree']),
        await runGitProcess({ binary: '/nonexistent/git', args: ['status'], cwd: ROOT, env }).catch(
          (error: Error) => error.name,
        ),
      ];
    };
    const helped = await outcomes();
    process.env.NIGHTSHIFT_SPAWN_HELPER = 'off';
    const direct = await outcomes();
    process.env.NIGHTSHIFT_SPAWN_HELPER = setting;
    expect(helped).toEqual(direct);
    // A quiet non-zero exit answers "no"; a loud one fails; a missing binary fails as a git error.
    expect(helped).toEqual([
      { ok: true, out: '' },
      { ok: false, out: expect.stringContaining('no-such-subcommand') },
      { ok: true, out: 'true' },
      'GitProcessError',
    ]);
  });

  it('gives the same results as a direct start: bytes that are not UTF-8, a lone surrogate, a signal, signal dispositions, a missing directory', async () => {
    const requests = [
      shell("printf 'a\\377b\\303'; printf '\\342\\234' >&2"),
      shell('echo before; kill -9 $$'),
      { ...shell('true'), cwd: path.join(ROOT, 'ns-no-such-directory') },
      // A commit subject cut in the middle of an emoji: Node's spawn encodes the lone half as U+FFFD.
      {
        ...shell('printf "%s|%s" "$1" "$NS_CUT"', { NS_CUT: 'b\uD83D' }),
        args: ['-c', 'printf "%s|%s" "$1" "$NS_CUT"', 'sh', 'a\uD83D'],
      },
      // Signals the process ignores and blocks: none of the helper's (a SIGINT it ignored would stay ignored). Read
      // by the process itself: the shell's own status, read while it forks a child, shows its mask of the moment.
      shell('exec grep -E "^Sig(Ign|Blk)" /proc/self/status'),
    ];
    const helped = await Promise.all(requests.map((request) => runCollected(request)));
    process.env.NIGHTSHIFT_SPAWN_HELPER = 'off';
    const direct = await Promise.all(requests.map((request) => runCollected(request)));
    process.env.NIGHTSHIFT_SPAWN_HELPER = setting;
    expect(helped).toEqual(direct);
    expect(helped[0]).toMatchObject({ code: 0, stdout: 'a\uFFFDb\uFFFD', stderr: '\uFFFD' });
    expect(helped[1]).toMatchObject({ code: null, signal: 'SIGKILL', stdout: 'before\n' });
    expect(helped[2]?.error).toMatch(/ENOENT/);
    expect(helped[3]).toMatchObject({ code: 0, stdout: 'a\uFFFD|b\uFFFD' });
  });

  it('reports a binary that does not exist as an error, not an exit code', async () => {
    const result = await runCollected({ ...shell(''), binary: '/nonexistent/ns-no-such-binary' });
    expect(result.error).toMatch(/ENOENT/);
  });

  it('fails the requests in flight when the helper dies, and starts a new helper for the next', async () => {
    const pidFile = path.join(os.tmpdir(), `ns-spawn-helper-${process.pid}.pid`);
    const running = runCollected(shell(`echo $$ > ${pidFile}; sleep 60`));
    // The helper is the parent of the shell: find it and kill it while the shell sleeps.
    const probe = await runCollected(shell('echo $PPID'));
    const helper = Number(probe.stdout.trim());
    try {
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
      process.kill(helper, 'SIGKILL');
      await expect(running).rejects.toThrow(
        /process helper (exited|disconnected).* before the process it started had finished/,
      );
      const after = await runCollected(shell('echo again $PPID'));
      expect(after.stdout).toMatch(/^again \d+/);
      expect(Number(after.stdout.trim().split(' ')[1])).not.toBe(helper);
    } finally {
      // The sleeping shell outlives its helper (its own process group): end it.
      const sleeper = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0;
      if (sleeper > 0) process.kill(-sleeper, 'SIGKILL');
      rmSync(pidFile, { force: true });
    }
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

describe('a helper program that fails', () => {
  it('that exits before it is ready: the request waiting for it runs directly', async () => {
    const broken = startSpawnHelper({ kind: 'python', file: '/bin/sh', args: ['-c', 'exit 3'] });
    const result = await broken?.run(shell('echo "ran $PPID"'));
    expect(result).toMatchObject({ code: 0, stdout: `ran ${process.pid}\n` });
  });

  it('that exits with a request in flight: the request fails, its outcome unknown', async () => {
    const dying = startSpawnHelper({
      kind: 'python',
      file: '/bin/sh',
      args: ['-c', `echo '{"ready":true}'; read request; exit 1`],
    });
    await expect(dying?.run(shell('echo never'))).rejects.toThrow(
      /process helper exited \(code 1\) before the process it started had finished/,
    );
  });
});

describe('NIGHTSHIFT_SPAWN_HELPER', () => {
  it('is on, node or off, and anything else is refused', () => {
    expect(spawnHelperSetting({})).toBe('on');
    expect(spawnHelperSetting({ NIGHTSHIFT_SPAWN_HELPER: '' })).toBe('on');
    expect(spawnHelperSetting({ NIGHTSHIFT_SPAWN_HELPER: 'on' })).toBe('on');
    expect(spawnHelperSetting({ NIGHTSHIFT_SPAWN_HELPER: 'node' })).toBe('node');
    expect(spawnHelperSetting({ NIGHTSHIFT_SPAWN_HELPER: 'off' })).toBe('off');
    expect(() => spawnHelperSetting({ NIGHTSHIFT_SPAWN_HELPER: 'false' })).toThrow(
      /must be "on", "node" or "off", not "false"/,
    );
  });

  it('looks for Python 3 at fixed places only, and runs Node where there is none', () => {
    expect(pythonLaunch(() => false)).toBeUndefined();
    expect(pythonLaunch((file) => file === '/usr/local/bin/python3')).toMatchObject({
      kind: 'python',
      file: '/usr/local/bin/python3',
      args: ['-I', '-S', '-c', expect.any(String)],
    });
  });
});
