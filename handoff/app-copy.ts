/**
 * A fresh copy of the workspace at its head commit for the app to run in: no ignored files (the app's data,
 * `node_modules`), no history, so every evaluation and every replay of a recorded check starts from the same empty
 * state and a check recorded on one run of the app replays on the next.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { locked, runGit, type WorkspaceRepo } from './git.js';

/** A clean checkout of the repository's HEAD; `remove` deletes it. */
export interface AppCopy {
  dir: string;
  /** The repository copied from: git questions about the copied commit go there (the copy holds no objects). */
  repo: WorkspaceRepo;
  /** The commit checked out. */
  sha: string;
  remove(): Promise<void>;
}

/**
 * Copies the workspace's HEAD into `dir` (which must not exist yet): a new repository that borrows the workspace's
 * objects for its checkout alone (`objects/info/alternates`, removed right after), so nothing is copied but the
 * head's files and nothing is hard-linked into the workspace. The copy's `.git` names the commit (HEAD) and holds
 * no object of it: an app that reads git history at its start finds none. Why not a clone: a local clone copies
 * every object of the history, and the merge queue starts an app per merge (5 s of a merge's 11 at 200 merged
 * features, bench merge-queue). Why not a fetch of the head alone (`--depth 1`, until 2026-12-04): upload-pack,
 * pack-objects and index-pack for every app start, 106 ms a copy on an idle core against 38 ms borrowed, and 200–400 ms
 * under a 4-lane build's load.
 */
export async function freshAppCopy(repo: WorkspaceRepo, dir: string): Promise<AppCopy> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.dirname(dir), { recursive: true });
  const remove = () => rm(dir, { recursive: true, force: true });
  // Under the workspace's lock: its `.git` is checked against the known-good record first (no planted alternates or
  // commondir for the copy to follow), and no harness command moves it while the copy borrows from it.
  const sha = await locked(repo, async () => {
    // One process for both: where the workspace keeps its objects, and its head.
    const [objects = '', head = ''] = (
      await runGit(repo, ['rev-parse', '--git-path', 'objects', 'HEAD^{commit}'])
    )
      .trim()
      .split('\n');
    try {
      await runGit(repo, ['init', '-q', '--initial-branch=app', dir], { cwd: path.dirname(dir) });
      const copy = { ...repo, dir, guard: undefined };
      const alternates = path.join(dir, '.git', 'objects', 'info', 'alternates');
      await writeFile(alternates, `${path.resolve(repo.dir, objects)}\n`);
      await runGit(copy, ['checkout', '-q', '--detach', head]);
      // The app never reaches the workspace's objects through its copy (a box hides the clones, not every workspace).
      await rm(alternates);
    } catch (error) {
      await remove();
      throw error;
    }
    return head;
  });
  return { dir, repo, sha, remove };
}
