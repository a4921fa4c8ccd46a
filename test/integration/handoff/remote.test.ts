import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PushRejectedError } from '../../../handoff/errors.js';
import { checkpoint, head, openRepo, type WorkspaceRepo } from '../../../handoff/git.js';
import { type GitProcessSpan, gitProcessChannel } from '../../../handoff/git-process.js';
import { branchHeads, pushFastForward, syncWorkspace } from '../../../handoff/git-remote.js';
import { agentGit, isolatedGitFile, tempDir } from './helpers.js';

const cleanups = isolatedGitFile();

function setup() {
  const temp = tempDir('ns-remote-');
  cleanups.push(temp.cleanup);
  const url = path.join(temp.dir, 'origin.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', url]);
  return {
    url,
    cacheA: path.join(temp.dir, 'workers', 'a', 'run-1'),
    cacheB: path.join(temp.dir, 'workers', 'b', 'run-1'),
  };
}

const branch = 'nightshift/run-1';

/** Writes `file` (its own name as content) in the clone, commits it as session `session` and pushes the branch. */
async function commitAndPush(repo: WorkspaceRepo, file: string, session: number): Promise<string> {
  await writeFile(path.join(repo.dir, file), `${file}\n`);
  await checkpoint(repo, { role: 'generator', runId: 'run-1', session, summary: file });
  return pushFastForward(repo, branch);
}

describe('remote mode', () => {
  it('a branch made for one session at a time (a lane) reaches the remote with its first push, not before', async () => {
    const { url, cacheA, cacheB } = setup();
    const run = await syncWorkspace({ url, branch, cacheDir: cacheA });
    const lane = 'nightshift/lane-1';
    const made = await syncWorkspace({
      url,
      branch: lane,
      baseBranch: branch,
      cacheDir: cacheB,
      pushNewBranch: false,
    });
    expect(made).toMatchObject({ createdBranch: true, head: run.head });
    expect(execFileSync('git', ['-C', url, 'branch', '--list', lane], { encoding: 'utf8' })).toBe('');
    await writeFile(path.join(cacheB, 'lane.txt'), 'lane\n');
    const commit = await checkpoint(made.repo, {
      role: 'generator',
      runId: 'run-1',
      session: 1,
      summary: 'l',
    });
    expect(await pushFastForward(made.repo, lane)).toBe(commit);
    expect(agentGit(url, 'rev-parse', lane)).toBe(commit);
  });

  it('two workers with separate clones take turns through a bare repository', async () => {
    const { url, cacheA, cacheB } = setup();
    const a1 = await syncWorkspace({ url, branch, cacheDir: cacheA });
    expect(a1.createdBranch).toBe(true);
    expect(agentGit(url, 'rev-parse', branch)).toBe(a1.head);

    await writeFile(path.join(cacheA, 'a.txt'), 'from A\n');
    const aCommit = await checkpoint(a1.repo, {
      role: 'generator',
      runId: 'run-1',
      session: 1,
      summary: 'a',
    });
    expect(await pushFastForward(a1.repo, branch)).toBe(aCommit);

    const b1 = await syncWorkspace({ url, branch, cacheDir: cacheB });
    expect(b1).toMatchObject({ head: aCommit, createdBranch: false });
    expect(await readFile(path.join(cacheB, 'a.txt'), 'utf8')).toBe('from A\n');
    await writeFile(path.join(cacheB, 'b.txt'), 'from B\n');
    const bCommit = await checkpoint(b1.repo, {
      role: 'evaluator',
      runId: 'run-1',
      session: 2,
      summary: 'b',
    });
    await pushFastForward(b1.repo, branch);

    // A left junk behind (an interrupted session): the sync discards it and lands on B's commit.
    await writeFile(path.join(cacheA, 'a.txt'), 'local edit\n');
    await writeFile(path.join(cacheA, 'junk.txt'), 'junk');
    const a2 = await syncWorkspace({ url, branch, cacheDir: cacheA });
    expect(a2.head).toBe(bCommit);
    expect(await readFile(path.join(cacheA, 'b.txt'), 'utf8')).toBe('from B\n');
    expect(await readFile(path.join(cacheA, 'a.txt'), 'utf8')).toBe('from A\n');
    expect(existsSync(path.join(cacheA, 'junk.txt'))).toBe(false);
    await writeFile(path.join(cacheA, 'c.txt'), 'from A again\n');
    const cCommit = await checkpoint(a2.repo, {
      role: 'generator',
      runId: 'run-1',
      session: 3,
      summary: 'c',
    });
    await pushFastForward(a2.repo, branch);

    const b2 = await syncWorkspace({ url, branch, cacheDir: cacheB });
    expect(b2.head).toBe(cCommit);
    expect(agentGit(url, 'rev-list', '--count', branch)).toBe('4');
  });

  it('a clone whose last fetch left the heads the remote has now syncs without fetching; one the remote moved past fetches', async () => {
    const { url, cacheA, cacheB } = setup();
    const origin = openRepo(url, { bare: true });
    const fetches: string[] = [];
    const count = (message: unknown) => {
      if ((message as GitProcessSpan).subcommand === 'fetch') fetches.push('fetch');
    };
    const a1 = await syncWorkspace({ url, branch, cacheDir: cacheA });
    const aCommit = await commitAndPush(a1.repo, 'a.txt', 1);
    gitProcessChannel.subscribe(count);
    try {
      // A pushed last: its remote-tracking ref holds the remote's head, so the next session's sync fetches nothing.
      const heads = await branchHeads(origin, 'refs/heads/', [branch, 'no-such-branch']);
      expect([...heads]).toEqual([[branch, aCommit]]);
      await writeFile(path.join(cacheA, 'junk.txt'), 'junk');
      const a2 = await syncWorkspace({ url, branch, cacheDir: cacheA, remoteHeads: heads });
      expect(a2.head).toBe(aCommit);
      expect(existsSync(path.join(cacheA, 'junk.txt'))).toBe(false);
      expect(fetches).toHaveLength(0);

      const b1 = await syncWorkspace({ url, branch, cacheDir: cacheB });
      const bCommit = await commitAndPush(b1.repo, 'b.txt', 2);
      fetches.length = 0;
      // B moved the branch past A's last fetch: told the remote's head now, A's clone fetches it.
      const moved = await branchHeads(origin, 'refs/heads/', [branch]);
      const a3 = await syncWorkspace({ url, branch, cacheDir: cacheA, remoteHeads: moved });
      expect(fetches).toHaveLength(1);
      expect(a3.head).toBe(bCommit);
      expect(await readFile(path.join(cacheA, 'b.txt'), 'utf8')).toBe('b.txt\n');
    } finally {
      gitProcessChannel.unsubscribe(count);
    }
  });

  it('rejects a non-fast-forward push with PushRejectedError and never forces', async () => {
    const { url, cacheA, cacheB } = setup();
    const a = await syncWorkspace({ url, branch, cacheDir: cacheA });
    const b = await syncWorkspace({ url, branch, cacheDir: cacheB });
    await writeFile(path.join(cacheA, 'a.txt'), 'A');
    await checkpoint(a.repo, { role: 'generator', runId: 'run-1', session: 1, summary: 'a' });
    const pushed = await pushFastForward(a.repo, branch);
    await writeFile(path.join(cacheB, 'b.txt'), 'B');
    await checkpoint(b.repo, { role: 'generator', runId: 'run-1', session: 1, summary: 'b' });
    const error = await pushFastForward(b.repo, branch).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PushRejectedError);
    expect((error as PushRejectedError).branch).toBe(branch);
    expect((error as PushRejectedError).code).toBe('PUSH_REJECTED');
    expect(agentGit(url, 'rev-parse', branch)).toBe(pushed);
    const again = await syncWorkspace({ url, branch, cacheDir: cacheB });
    expect(again.head).toBe(pushed);
    expect(await head(b.repo)).toBe(pushed);
  });

  it('creates the run branch from the remote default branch when it has commits', async () => {
    const { url, cacheA } = setup();
    const seed = tempDir('ns-seed-');
    cleanups.push(seed.cleanup);
    agentGit(seed.dir, 'init', '-q', '-b', 'main');
    await writeFile(path.join(seed.dir, 'app_spec.md'), '# spec\n');
    agentGit(seed.dir, 'add', '-A');
    agentGit(seed.dir, 'commit', '-q', '-m', 'spec');
    agentGit(seed.dir, 'push', '-q', url, 'main');
    const synced = await syncWorkspace({ url, branch, cacheDir: cacheA });
    expect(synced).toMatchObject({ createdBranch: true, head: agentGit(seed.dir, 'rev-parse', 'HEAD') });
    expect(await readFile(path.join(cacheA, 'app_spec.md'), 'utf8')).toBe('# spec\n');
  });
});
