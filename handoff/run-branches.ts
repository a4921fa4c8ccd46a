/**
 * Branches the harness made for a run beside its run branch (the lanes' `nightshift/<run>/lane-…`), listed and
 * deleted in a repository or on a remote. Only refs under the prefix given are touched: never the run branch,
 * never anything else of the workspace's.
 */
import { locked, runGit, type WorkspaceRepo } from './git.js';

/** A ref prefix must be a harness namespace under refs/heads (a slip here could name the run branch). */
function checkPrefix(prefix: string): void {
  if (!/^refs\/heads\/nightshift\/[A-Za-z0-9_-]+\/[A-Za-z0-9._-]+$/.test(prefix)) {
    throw new Error(`run-branches: refusing the ref prefix ${JSON.stringify(prefix)}`);
  }
}

/** The refs of `branches` that lie under `prefix` (any other is dropped, never deleted). */
function refsUnder(prefix: string, branches: readonly string[]): string[] {
  checkPrefix(prefix);
  return branches.map((branch) => `refs/heads/${branch}`).filter((ref) => ref.startsWith(prefix));
}

/** The branches (`nightshift/…`, without `refs/heads/`) whose ref starts with `prefix` in the repository. */
export async function listBranchesUnder(repo: WorkspaceRepo, prefix: string): Promise<string[]> {
  checkPrefix(prefix);
  const out = await runGit(repo, ['for-each-ref', '--format=%(refname)', 'refs/heads/nightshift/']);
  return out
    .split('\n')
    .filter((ref) => ref.startsWith(prefix))
    .map((ref) => ref.slice('refs/heads/'.length));
}

/** Deletes the branches (each must start with `prefix`) from the repository; returns how many went. */
export async function deleteBranchesUnder(
  repo: WorkspaceRepo,
  prefix: string,
  branches: readonly string[],
): Promise<number> {
  const refs = refsUnder(prefix, branches);
  if (refs.length === 0) return 0;
  await locked(repo, async () => {
    for (const ref of refs) await runGit(repo, ['update-ref', '-d', ref]);
  });
  return refs.length;
}

/** The branches whose ref starts with `prefix` on the remote `url` (asked from any local repository). */
export async function listRemoteBranchesUnder(
  local: WorkspaceRepo,
  url: string,
  prefix: string,
): Promise<string[]> {
  checkPrefix(prefix);
  const out = await runGit(local, ['ls-remote', '--heads', url, `${prefix}*`], { remote: true });
  return out
    .split('\n')
    .map((line) => line.split('\t')[1] ?? '')
    .filter((ref) => ref.startsWith(prefix))
    .map((ref) => ref.slice('refs/heads/'.length));
}

/** Deletes the branches (each must start with `prefix`) on the remote in one push; returns how many went. */
export async function deleteRemoteBranchesUnder(
  local: WorkspaceRepo,
  url: string,
  prefix: string,
  branches: readonly string[],
): Promise<number> {
  const refs = refsUnder(prefix, branches);
  if (refs.length === 0) return 0;
  await runGit(local, ['push', '-q', url, ...refs.map((ref) => `:${ref}`)], { remote: true });
  return refs.length;
}
