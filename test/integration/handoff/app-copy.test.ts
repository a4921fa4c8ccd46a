/**
 * The app's copy of the workspace (handoff/app-copy.ts), on real git: the head commit's files and nothing else — no
 * ignored or untracked files, and no object of the history, which a local clone copied whole (the merge queue starts
 * an app per merge, so the copy grew with every merge); the workspace's objects are borrowed for the checkout only.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freshAppCopy } from '../../../handoff/app-copy.js';
import { checkpoint, ensureRepo, openRepo, runGit } from '../../../handoff/git.js';
import { recordGitDir } from '../../../handoff/git-guard.js';
import { agentGit, tempDir } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A workspace with three commits: a file added, changed, and another removed; an ignored and an untracked file. */
async function workspaceWithHistory() {
  const temp = tempDir('ns-app-copy-');
  cleanups.push(temp.cleanup);
  const dir = path.join(fs.realpathSync(temp.dir), 'ws');
  const repo = await ensureRepo(dir);
  const commit = async (summary: string) =>
    (await checkpoint(repo, { role: 'generator', runId: 'r1', session: 1, summary })) as string;
  fs.writeFileSync(path.join(dir, '.gitignore'), 'data/\n');
  fs.writeFileSync(path.join(dir, 'server.js'), 'v1\n');
  fs.writeFileSync(path.join(dir, 'old.js'), 'removed later\n');
  const first = await commit('first');
  fs.writeFileSync(path.join(dir, 'server.js'), 'v2\n');
  await commit('second');
  fs.rmSync(path.join(dir, 'old.js'));
  fs.mkdirSync(path.join(dir, 'public'));
  fs.writeFileSync(path.join(dir, 'public', 'index.html'), '<h1>ok</h1>\n');
  const last = await commit('third');
  fs.mkdirSync(path.join(dir, 'data'));
  fs.writeFileSync(path.join(dir, 'data', 'todos.json'), '[]\n');
  fs.writeFileSync(path.join(dir, 'scratch.txt'), 'not committed\n');
  return { temp: temp.dir, dir, repo, first, last };
}

describe('the app copy', () => {
  it("holds the head commit's files only, and no object: the workspace's were borrowed for the checkout", async () => {
    const { temp, dir, repo, first, last } = await workspaceWithHistory();
    const copy = await freshAppCopy(repo, path.join(temp, 'copies', 'evaluation'));
    const files = fs.readdirSync(copy.dir, { recursive: true, encoding: 'utf8' });
    expect(files.filter((file) => file !== '.git' && !file.startsWith('.git/')).sort()).toEqual([
      '.gitignore',
      'public',
      'public/index.html',
      'server.js',
    ]);
    expect(fs.readFileSync(path.join(copy.dir, 'server.js'), 'utf8')).toBe('v2\n');
    expect(agentGit(copy.dir, 'rev-parse', 'HEAD')).toBe(last);
    expect(copy.sha).toBe(last);
    // No object came over (a clone copied them all), and the copy no longer reaches the workspace's.
    expect(agentGit(copy.dir, 'count-objects', '-v')).toMatch(/^count: 0$[\s\S]*^in-pack: 0$/m);
    expect(fs.existsSync(path.join(copy.dir, '.git', 'objects', 'info', 'alternates'))).toBe(false);
    expect(() => agentGit(copy.dir, 'cat-file', '-e', last)).toThrow();
    expect(() => agentGit(copy.dir, 'cat-file', '-e', first)).toThrow();
    // Git questions about the copied commit go to the workspace it came from.
    expect(copy.repo.dir).toBe(repo.dir);
    // The workspace is untouched: its ignored and untracked files, its head and branch.
    expect(fs.existsSync(path.join(dir, 'data', 'todos.json'))).toBe(true);
    expect((await runGit(repo, ['symbolic-ref', '--short', 'HEAD'])).trim()).toBe('main');
    await copy.remove();
    expect(fs.existsSync(copy.dir)).toBe(false);
  });

  it('copies a detached head (a full sweep probing an older merge) and replaces a copy left behind', async () => {
    const { temp, dir, repo, first } = await workspaceWithHistory();
    agentGit(dir, 'checkout', '-q', '--detach', first);
    const target = path.join(temp, 'copies', 'probe');
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, 'stale.txt'), 'from an earlier copy\n');
    const copy = await freshAppCopy(repo, target);
    expect(agentGit(copy.dir, 'rev-parse', 'HEAD')).toBe(first);
    expect(fs.readFileSync(path.join(copy.dir, 'old.js'), 'utf8')).toBe('removed later\n');
    expect(fs.existsSync(path.join(copy.dir, 'stale.txt'))).toBe(false);
    expect(fs.existsSync(path.join(copy.dir, 'public'))).toBe(false);
  });

  it('removes itself when the checkout fails (a commit git refuses to check out), and says why', async () => {
    const { temp, dir, repo } = await workspaceWithHistory();
    // A tree with an entry named `.git`: anyone with the workspace's git can make one; no checkout takes it.
    const blob = agentGit(dir, 'hash-object', '-w', 'server.js');
    const tree = execFileSync('git', ['-C', dir, 'mktree'], { input: `100644 blob ${blob}\t.git\n` })
      .toString()
      .trim();
    agentGit(dir, 'reset', '-q', '--soft', agentGit(dir, 'commit-tree', tree, '-m', 'a tree with .git'));
    const target = path.join(temp, 'copies', 'refused');
    await expect(freshAppCopy(repo, target)).rejects.toThrow(/invalid path '\.git'/);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("checks the workspace's .git first: alternates planted there are removed before the copy borrows", async () => {
    const { temp, dir } = await workspaceWithHistory();
    const violations: string[] = [];
    const recordFile = path.join(temp, 'known-good.json');
    await recordGitDir(dir, recordFile);
    const guarded = openRepo(dir, { guard: { recordFile, onViolation: (v) => violations.push(v.detail) } });
    const other = path.join(temp, 'other.git');
    execFileSync('git', ['init', '-q', '--bare', other]);
    fs.writeFileSync(path.join(dir, '.git', 'objects', 'info', 'alternates'), `${other}/objects\n`);
    const copy = await freshAppCopy(guarded, path.join(temp, 'copies', 'guarded'));
    expect(violations.join('\n')).toContain('.git/objects/info/alternates added');
    expect(fs.existsSync(path.join(dir, '.git', 'objects', 'info', 'alternates'))).toBe(false);
    expect(fs.readFileSync(path.join(copy.dir, 'server.js'), 'utf8')).toBe('v2\n');
  });
});
