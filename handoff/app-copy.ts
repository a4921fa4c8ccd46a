/**
 * A fresh copy of the workspace at its head commit for the app to run in: no ignored files (the app's data,
 * `node_modules`), so every evaluation and every replay of a recorded check starts from the same empty state
 * and a check recorded on one run of the app replays on the next.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { runGit, type WorkspaceRepo } from './git.js';

/** A clean checkout of the repository's HEAD; `remove` deletes it. */
export interface AppCopy {
  dir: string;
  remove(): Promise<void>;
}

/** Clones the workspace's HEAD into `dir` (which must not exist yet), without hard links into the workspace. */
export async function freshAppCopy(repo: WorkspaceRepo, dir: string): Promise<AppCopy> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.dirname(dir), { recursive: true });
  await runGit(repo, ['clone', '-q', '--no-hardlinks', '--no-checkout', repo.dir, dir], {
    cwd: path.dirname(dir),
  });
  const copy = { ...repo, dir, guard: undefined };
  await runGit(copy, [
    'checkout',
    '-q',
    '--detach',
    await runGit(repo, ['rev-parse', 'HEAD']).then((s) => s.trim()),
  ]);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
