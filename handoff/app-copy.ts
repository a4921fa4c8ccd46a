/**
 * A fresh copy of the workspace at its head commit for the app to run in: no ignored files (the app's data,
 * `node_modules`), no history, so every evaluation and every replay of a recorded check starts from the same empty
 * state and a check recorded on one run of the app replays on the next.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { runGit, type WorkspaceRepo } from './git.js';

/** A clean checkout of the repository's HEAD (a shallow repository of that one commit); `remove` deletes it. */
export interface AppCopy {
  dir: string;
  /** The copy's own repository (what git questions about the copied commit go to). */
  repo: WorkspaceRepo;
  /** The commit checked out. */
  sha: string;
  remove(): Promise<void>;
}

/**
 * Copies the workspace's HEAD into `dir` (which must not exist yet): a new repository that fetches the head commit
 * alone (`--depth 1`) and checks it out. Nothing is hard-linked into the workspace. Why not a clone: a local clone
 * copies every object of the history, and the merge queue starts an app per merge, so that copy grew with every
 * merge (5 s of a merge's 11 at 200 merged features, bench merge-queue); the head's tree is what the app needs.
 */
export async function freshAppCopy(repo: WorkspaceRepo, dir: string): Promise<AppCopy> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.dirname(dir), { recursive: true });
  const sha = (await runGit(repo, ['rev-parse', 'HEAD'])).trim();
  await runGit(repo, ['init', '-q', '--initial-branch=app', dir], { cwd: path.dirname(dir) });
  const copy = { ...repo, dir, guard: undefined };
  // A fetch from a path goes through upload-pack (a clone's local copy would not): only the head's objects move.
  // The copy lives for one app: no `git maintenance` after the fetch, no FETCH_HEAD.
  await runGit(copy, [
    'fetch',
    '-q',
    '--no-tags',
    '--no-auto-maintenance',
    '--no-write-fetch-head',
    '--depth',
    '1',
    repo.dir,
    sha,
  ]);
  await runGit(copy, ['checkout', '-q', '--detach', sha]);
  return { dir, repo: copy, sha, remove: () => rm(dir, { recursive: true, force: true }) };
}
