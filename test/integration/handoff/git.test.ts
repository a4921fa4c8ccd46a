import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isRunning } from '../../../box/proc.js';
import {
  checkpoint,
  commitsSince,
  currentBranch,
  ensureRepo,
  head,
  isClean,
  parseCheckpointTrailers,
  rollback,
  runGit,
} from '../../../handoff/git.js';
import { agentGit, isolateGitConfig, tempDir } from './helpers.js';

let restoreConfig: () => void;
beforeAll(() => {
  restoreConfig = isolateGitConfig();
});
afterAll(() => restoreConfig());

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function newRepo() {
  const temp = tempDir();
  cleanups.push(temp.cleanup);
  const repo = await ensureRepo(temp.dir);
  await writeFile(path.join(temp.dir, 'README.md'), '# app\n');
  const first = await checkpoint(repo, { role: 'harness', runId: 'r1', session: 0, summary: 'first' });
  return { repo, dir: temp.dir, first: first! };
}

describe('git checkpoints', () => {
  it('initialises main, commits with a structured message and the harness identity, without global config', async () => {
    const { repo, dir, first } = await newRepo();
    expect(await currentBranch(repo)).toBe('main');
    await writeFile(path.join(dir, 'todo.js'), 'export {}\n');
    const sha = await checkpoint(repo, {
      role: 'generator',
      runId: 'run-42',
      session: 7,
      featureId: 'F-003',
      summary: 'add todo\nwith a body line',
      wip: true,
    });
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await head(repo)).toBe(sha);
    const message = agentGit(dir, 'log', '-1', '--format=%B');
    expect(message.split('\n')[0]).toBe('nightshift(generator): F-003 WIP: add todo');
    expect(message).toContain('with a body line');
    expect(parseCheckpointTrailers(message)).toEqual({
      role: 'generator',
      run: 'run-42',
      session: '7',
      feature: 'F-003',
      wip: 'true',
    });
    expect(agentGit(dir, 'log', '-1', '--format=%an <%ae> / %cn <%ce>')).toBe(
      'nightshift <nightshift@localhost> / nightshift <nightshift@localhost>',
    );
    expect(await commitsSince(repo, first)).toEqual([sha]);
  });

  it('returns null when there is nothing to commit, and isClean tells untracked files apart from ignored ones', async () => {
    const { repo, dir } = await newRepo();
    expect(
      await checkpoint(repo, { role: 'generator', runId: 'r', session: 1, summary: 'nothing' }),
    ).toBeNull();
    await writeFile(path.join(dir, '.gitignore'), 'node_modules/\n');
    await checkpoint(repo, { role: 'harness', runId: 'r', session: 1, summary: 'ignore' });
    await mkdir(path.join(dir, 'node_modules'));
    await writeFile(path.join(dir, 'node_modules', 'x.js'), '');
    expect(await isClean(repo)).toBe(true);
    await writeFile(path.join(dir, 'new.txt'), 'x');
    expect(await isClean(repo)).toBe(false);
  });

  it('does not run hooks a session planted in .git/hooks', async () => {
    const { repo, dir } = await newRepo();
    const marker = path.join(dir, '..', `${path.basename(dir)}-hook-ran`);
    cleanups.push(() => rmSync(marker, { force: true }));
    await writeFile(path.join(dir, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\ntouch ${marker}\nexit 1\n`, {
      mode: 0o755,
    });
    await writeFile(path.join(dir, 'a.txt'), 'a');
    expect(
      await checkpoint(repo, { role: 'generator', runId: 'r', session: 1, summary: 'a' }),
    ).not.toBeNull();
    expect(existsSync(marker)).toBe(false);
  });

  it('takes 30 concurrent checkpoints on one repository without an index.lock failure', async () => {
    const { repo, dir, first } = await newRepo();
    const shas = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        await writeFile(path.join(dir, `file-${i}.txt`), `content ${i}\n`);
        return checkpoint(repo, { role: 'generator', runId: 'r', session: i, summary: `file ${i}` });
      }),
    );
    const made = shas.filter((sha): sha is string => sha !== null);
    // Every file is committed exactly once (a checkpoint may carry files written by others before it ran).
    expect(new Set(made).size).toBe(made.length);
    expect(await isClean(repo)).toBe(true);
    expect(await commitsSince(repo, first)).toEqual(made);
    const tracked = agentGit(dir, 'ls-files').split('\n');
    for (let i = 0; i < 30; i++) expect(tracked).toContain(`file-${i}.txt`);
  });

  it('recovers an index.lock left by hand (no git process alive)', async () => {
    const { repo, dir } = await newRepo();
    await writeFile(path.join(dir, '.git', 'index.lock'), '');
    await writeFile(path.join(dir, 'b.txt'), 'b');
    const sha = await checkpoint(repo, { role: 'generator', runId: 'r', session: 2, summary: 'b' });
    expect(sha).not.toBeNull();
    expect(existsSync(path.join(dir, '.git', 'index.lock'))).toBe(false);
  });

  it('recovers the index.lock of a real git killed with SIGKILL mid-commit', async () => {
    const { repo, dir } = await newRepo();
    // A pre-commit hook that sleeps keeps `git commit -a` holding index.lock until we kill it.
    await writeFile(path.join(dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nsleep 30\n', { mode: 0o755 });
    await writeFile(path.join(dir, 'README.md'), '# changed\n');
    const git = spawn(
      'git',
      ['-c', 'user.name=agent', '-c', 'user.email=a@b', 'commit', '-a', '-q', '-m', 'x'],
      {
        cwd: dir,
        detached: true,
        stdio: 'ignore',
      },
    );
    const lock = path.join(dir, '.git', 'index.lock');
    for (let i = 0; i < 200 && !existsSync(lock); i++) await sleep(50);
    expect(existsSync(lock)).toBe(true);
    process.kill(-git.pid!, 'SIGKILL');
    for (let i = 0; i < 100 && isRunning(git.pid!); i++) await sleep(50);
    expect(existsSync(lock)).toBe(true);
    const sha = await checkpoint(repo, { role: 'generator', runId: 'r', session: 3, summary: 'after crash' });
    expect(sha).not.toBeNull();
    expect(agentGit(dir, 'show', '--format=', '--name-only', 'HEAD')).toBe('README.md');
  });

  it('rolls back: hard reset, untracked files removed, ignored files kept', async () => {
    const { repo, dir, first } = await newRepo();
    await writeFile(path.join(dir, '.gitignore'), 'node_modules/\n');
    const keep = await checkpoint(repo, { role: 'harness', runId: 'r', session: 1, summary: 'ignore' });
    await writeFile(path.join(dir, 'tracked.txt'), 'x');
    await checkpoint(repo, { role: 'generator', runId: 'r', session: 2, summary: 'tracked' });
    await writeFile(path.join(dir, 'README.md'), 'modified\n');
    await mkdir(path.join(dir, 'untracked-dir', 'deep'), { recursive: true });
    await writeFile(path.join(dir, 'untracked-dir', 'deep', 'u.txt'), 'u');
    await writeFile(path.join(dir, 'loose.txt'), 'u');
    await mkdir(path.join(dir, 'node_modules'));
    await writeFile(path.join(dir, 'node_modules', 'dep.js'), '');
    await rollback(repo, keep!);
    expect(await head(repo)).toBe(keep);
    expect(existsSync(path.join(dir, 'tracked.txt'))).toBe(false);
    expect(existsSync(path.join(dir, 'untracked-dir'))).toBe(false);
    expect(existsSync(path.join(dir, 'loose.txt'))).toBe(false);
    expect(existsSync(path.join(dir, 'node_modules', 'dep.js'))).toBe(true);
    expect(await isClean(repo)).toBe(true);
    await rollback(repo, first, { removeIgnored: true });
    expect(existsSync(path.join(dir, 'node_modules'))).toBe(false);
  });
});

describe('harness git processes', () => {
  it('answer a question by output alone (a quiet non-zero exit), and fail with what git printed on stderr', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const repo = await ensureRepo(temp.dir);
    expect(await runGit(repo, ['config', '--get', 'no.such-key'])).toBe('');
    expect(await runGit(repo, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'])).toBe('');
    await expect(runGit(repo, ['rev-parse', '--verify', 'no-such-ref'])).rejects.toThrow(
      /fatal: Needed a single revision/,
    );
  });

  it('refuse arguments that would run a program, and run nothing', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const repo = await ensureRepo(temp.dir);
    const planted = path.join(temp.dir, 'ran');
    await expect(runGit(repo, ['fetch', `--upload-pack=touch ${planted}`, temp.dir, 'main'])).rejects.toThrow(
      /upload-pack/i,
    );
    expect(existsSync(planted)).toBe(false);
  });

  it('report a clean tree in one WIP checkpoint without committing, and commit leftovers', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const repo = await ensureRepo(temp.dir);
    await writeFile(path.join(temp.dir, 'a.txt'), 'a');
    const first = await checkpoint(repo, { role: 'harness', runId: 'r', session: 0, summary: 'start' });
    const wip = { role: 'generator', runId: 'r', session: 1, summary: 'leftovers', wip: true } as const;
    expect(await checkpoint(repo, wip)).toBeNull();
    expect(await head(repo)).toBe(first);
    await writeFile(path.join(temp.dir, 'b.txt'), 'b');
    const second = await checkpoint(repo, wip);
    expect(second).not.toBe(first);
    expect(await isClean(repo)).toBe(true);
  });
});
