/**
 * A fresh copy of the workspace at its head commit for the app to run in: no ignored files (the app's data,
 * `node_modules`), no untracked files, so every evaluation and every replay of a recorded check starts from the same empty
 * state and a check recorded on one run of the app replays on the next.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { runGit, type WorkspaceRepo } from './git.js';

/** A clean checkout of the repository's HEAD (a shared clone: it borrows the workspace's objects); `remove` deletes it. */
export interface AppCopy {
  dir: string;
  /** The copy's own repository (what git questions about the copied commit go to). */
  repo: WorkspaceRepo;
  /** The commit checked out. */
  sha: string;
  remove(): Promise<void>;
}

/**
 * Copies the workspace's HEAD into `dir` (which must not exist yet): a clone with `--shared` (its
 * `objects/info/alternates` names the workspace's object store, from which it reads) that copies no object and no
 * history, then the head commit checked out. Nothing is hard-linked into the workspace, and the cost does not grow
 * with the history: a plain local clone copied every object (the merge queue starts an app per merge: 5 s of a
 * merge's 11 at 200 merged features, bench merge-queue), and a `fetch --depth 1` of the head commit into a new
 * repository, used until 2026-12-04, ran upload-pack and pack-objects (six git processes, about 0.3 s under load,
 * on every app start of every evaluation, pass gate and merge).
 */
export async function freshAppCopy(repo: WorkspaceRepo, dir: string): Promise<AppCopy> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.dirname(dir), { recursive: true });
  const sha = (await runGit(repo, ['rev-parse', 'HEAD'])).trim();
  await runGit(repo, ['clone', '-q', '--shared', '--no-checkout', '--no-tags', repo.dir, dir], {
    cwd: path.dirname(dir),
  });
  const copy = { ...repo, dir, guard: undefined };
  await runGit(copy, ['checkout', '-q', '--detach', sha]);
  return { dir, repo: copy, sha, remove: () => rm(dir, { recursive: true, force: true }) };
}
