import type { WorkspaceRepo } from '../handoff/git.js';
import { runGit } from '../handoff/git.js';
import { progressTail } from '../handoff/progress.js';
import type { WorkspaceSnapshot } from './orientation.js';

/** Bytes of `progress.md` shown to a session. */
const PROGRESS_TAIL_BYTES = 3_000;

/** Gathers what a session would otherwise spend turns on: files, recent commits, recent progress notes. */
export async function snapshotWorkspace(repo: WorkspaceRepo): Promise<WorkspaceSnapshot> {
  const [files, gitLog, tail] = await Promise.all([
    runGit(repo, ['ls-files']),
    runGit(repo, ['log', '--oneline', '-n', '12']),
    progressTail(repo.dir, PROGRESS_TAIL_BYTES),
  ]);
  return { files: files.split('\n').filter(Boolean), gitLog, progressTail: tail };
}
