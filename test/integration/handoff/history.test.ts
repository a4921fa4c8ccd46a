import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpoint, commitsSince, currentBranch, ensureRepo, head, isClean } from '../../../handoff/git.js';
import { backupRepo, verifyDescendsFrom } from '../../../handoff/git-history.js';
import { agentGit, isolatedGitFile, tempDir } from './helpers.js';

const cleanups = isolatedGitFile();

/** A repository with three commits: the state at a session's start. */
async function threeCommits() {
  const temp = tempDir();
  cleanups.push(temp.cleanup);
  const repo = await ensureRepo(temp.dir);
  const shas: string[] = [];
  for (const name of ['one', 'two', 'three']) {
    await writeFile(path.join(temp.dir, `${name}.txt`), name);
    shas.push(
      (await checkpoint(repo, { role: 'generator', runId: 'r', session: shas.length, summary: name }))!,
    );
  }
  return { repo, dir: temp.dir, shas, start: shas[2]! };
}

function reachable(dir: string, sha: string): boolean {
  return agentGit(dir, 'branch', '--contains', sha).includes('main');
}

describe('verifyDescendsFrom', () => {
  it('accepts a session that only added commits', async () => {
    const { repo, dir, start } = await threeCommits();
    await writeFile(path.join(dir, 'four.txt'), 'four');
    agentGit(dir, 'add', '-A');
    agentGit(dir, 'commit', '-q', '-m', 'four');
    expect(await verifyDescendsFrom(repo, start, { branch: 'main' })).toEqual({ ok: true });
    expect(await commitsSince(repo, start)).toHaveLength(1);
  });

  it('rolls back `git reset --hard <root>` + a new commit, losing no commit', async () => {
    const { repo, dir, shas, start } = await threeCommits();
    agentGit(dir, 'reset', '-q', '--hard', shas[0]!);
    await writeFile(path.join(dir, 'other.txt'), 'rewritten');
    agentGit(dir, 'add', '-A');
    agentGit(dir, 'commit', '-q', '-m', 'rewritten');
    const rewritten = agentGit(dir, 'rev-parse', 'HEAD');
    await writeFile(path.join(dir, 'stray.txt'), 'untracked');
    const result = await verifyDescendsFrom(repo, start, { branch: 'main', label: 'session-4' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violation.kind).toBe('history_rewritten');
    expect(result.violation.detail).toContain(`does not descend from the session's start commit ${start}`);
    expect(result.restored).toBe(true);
    expect(result.rejectedRef).toBe('refs/nightshift/rejected/session-4');
    expect(await head(repo)).toBe(start);
    for (const sha of shas) expect(reachable(dir, sha)).toBe(true);
    expect(agentGit(dir, 'rev-parse', 'refs/nightshift/rejected/session-4')).toBe(rewritten);
    expect(existsSync(path.join(dir, 'stray.txt'))).toBe(false);
    expect(await isClean(repo)).toBe(true);
  });

  it('rolls back `git commit --amend` of the start commit', async () => {
    const { repo, dir, shas, start } = await threeCommits();
    await writeFile(path.join(dir, 'three.txt'), 'amended');
    agentGit(dir, 'commit', '-q', '-a', '--amend', '-m', 'three, amended');
    expect(agentGit(dir, 'rev-parse', 'HEAD')).not.toBe(start);
    const result = await verifyDescendsFrom(repo, start, { branch: 'main' });
    expect(result).toMatchObject({ ok: false, restored: true, violation: { kind: 'history_rewritten' } });
    expect(await head(repo)).toBe(start);
    expect(await readFile(path.join(dir, 'three.txt'), 'utf8')).toBe('three');
    for (const sha of shas) expect(reachable(dir, sha)).toBe(true);
  });

  it('puts a session that switched branches back on the run branch', async () => {
    const { repo, dir, start } = await threeCommits();
    agentGit(dir, 'checkout', '-q', '-b', 'side');
    await writeFile(path.join(dir, 'side.txt'), 'side');
    agentGit(dir, 'add', '-A');
    agentGit(dir, 'commit', '-q', '-m', 'side work');
    const sideHead = agentGit(dir, 'rev-parse', 'HEAD');
    expect(await verifyDescendsFrom(repo, start, { branch: 'main' })).toEqual({ ok: true });
    expect(await currentBranch(repo)).toBe('main');
    expect(await head(repo)).toBe(sideHead);
  });

  it('rebuilds a deleted or re-initialised .git from the backup mirror', async () => {
    const { repo, dir, shas, start } = await threeCommits();
    const backup = tempDir('ns-backup-');
    cleanups.push(backup.cleanup);
    const mirror = path.join(backup.dir, 'mirror.git');
    await backupRepo(repo, mirror);
    await rm(path.join(dir, '.git'), { recursive: true, force: true });
    agentGit(dir, 'init', '-q', '-b', 'main');
    agentGit(dir, 'add', '-A');
    agentGit(dir, 'commit', '-q', '-m', 'fresh history');
    const result = await verifyDescendsFrom(repo, start, { branch: 'main', backupDir: mirror });
    expect(result).toMatchObject({ ok: false, restored: true, violation: { kind: 'history_rewritten' } });
    if (result.ok) return;
    expect(result.violation.detail).toContain('rebuilt from the backup mirror');
    expect(await head(repo)).toBe(start);
    for (const sha of shas) expect(reachable(dir, sha)).toBe(true);
    expect(await isClean(repo)).toBe(true);

    // A later backup is an incremental fetch; deleting .git outright is handled the same way.
    await writeFile(path.join(dir, 'four.txt'), 'four');
    const four = (await checkpoint(repo, { role: 'generator', runId: 'r', session: 5, summary: 'four' }))!;
    await backupRepo(repo, mirror);
    await rm(path.join(dir, '.git'), { recursive: true, force: true });
    const again = await verifyDescendsFrom(repo, four, { branch: 'main', backupDir: mirror });
    expect(again).toMatchObject({ ok: false, restored: true });
    expect(await head(repo)).toBe(four);
  });

  it('skips the backup fetch when HEAD has not moved since the last one, and fetches once it has', async () => {
    const { repo, dir, start } = await threeCommits();
    const backup = tempDir('ns-backup-');
    cleanups.push(backup.cleanup);
    const mirror = path.join(backup.dir, 'mirror.git');
    await backupRepo(repo, mirror, { head: start });
    const mirrorBranches = () => agentGit(mirror, 'branch', '--list', '--format=%(refname:short)');
    // A new branch at the same HEAD: nothing the restore needs, and not fetched.
    agentGit(dir, 'branch', 'side');
    await backupRepo(repo, mirror, { head: start });
    expect(mirrorBranches()).not.toContain('side');
    await writeFile(path.join(dir, 'four.txt'), 'four');
    const four = (await checkpoint(repo, { role: 'generator', runId: 'r', session: 5, summary: 'four' }))!;
    await backupRepo(repo, mirror, { head: four });
    expect(mirrorBranches()).toContain('side');
    expect(agentGit(mirror, 'rev-parse', 'main')).toBe(four);
  });

  it('reports a destroyed .git clearly when there is no backup', async () => {
    const { repo, dir, start } = await threeCommits();
    await rm(path.join(dir, '.git'), { recursive: true, force: true });
    const result = await verifyDescendsFrom(repo, start);
    expect(result).toEqual({
      ok: false,
      restored: false,
      violation: {
        kind: 'history_rewritten',
        detail: `.git was deleted: the start commit ${start} is gone and no backup mirror exists`,
      },
    });
  });
});
