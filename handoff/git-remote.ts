import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { GitError, PushRejectedError } from './errors.js';
import {
  askGit,
  headUnlocked,
  locked,
  openRepo,
  type RepoOptions,
  runGit,
  type WorkspaceRepo,
} from './git.js';
import { CREDENTIAL_HELPER_VARIABLE } from './git-env.js';
import { GIT_CREDENTIALS_VARIABLE, type RemoteCredentials } from './remote-credentials.js';
import { credentialGitEnv, splitRemoteUrl } from './remote-url.js';

const log = moduleLogger('handoff/git-remote');

/** Where a remote workspace comes from and where this worker keeps its clone. */
export interface SyncOptions extends RepoOptions {
  /**
   * The remote's URL (any URL git accepts, a bare repository path included), from the run record (masked when it
   * had a credential): fetches and pushes name it explicitly, without userinfo, never the clone's
   * `remote.origin.url`, so a tampered `.git/config` cannot redirect them.
   */
  url: string;
  /** Where the remote's credential is found (a credential still in `url` comes first); none: git's own ways. */
  credentials?: RemoteCredentials;
  /** The run branch. */
  branch: string;
  /** This worker's clone (one per worker, under the data dir). */
  cacheDir: string;
  /** A missing `branch` is made from this branch of the remote (a lane from the run branch); default its HEAD. */
  baseBranch?: string;
  /**
   * Push a branch this call made at once (default true: workers that might make it together build on one root).
   * False for a branch only one session at a time works on (a lane's): its session's push creates it.
   */
  pushNewBranch?: boolean;
  /**
   * The remote's heads of the branches this sync needs (branch → sha), read just before from a remote the worker
   * can read directly (a local run's own repository, {@link branchHeads}). When the clone's `refs/remotes/origin/*`
   * hold exactly these, nothing moved since its last fetch and none runs. Absent: the clone always fetches.
   */
  remoteHeads?: ReadonlyMap<string, string>;
}

/** The synced clone: on the run branch, at the remote's head, with no local changes or untracked files. */
export interface SyncResult {
  repo: WorkspaceRepo;
  head: string;
  /** The run branch did not exist on the remote and this call created it. */
  createdBranch: boolean;
}

/**
 * Clones the remote into the cache dir (or fetches when the clone exists), then hard-resets to
 * `origin/<branch>` and removes untracked files. When the branch is missing on the remote it is created from
 * the remote's default head, or, when the remote is empty, from a new empty root commit; it is pushed
 * (fast-forward only) at once so that every worker builds on the same root. If another worker created it first,
 * theirs is taken.
 */
export async function syncWorkspace(options: SyncOptions): Promise<SyncResult> {
  const remote = splitRemoteUrl(options.url);
  const credential = remote.credential ?? (await options.credentials?.find(remote.plain)) ?? null;
  // Git is given the URL without userinfo (so no `.git/config` and no argv holds a credential), and the credential
  // only as a header in the environment of the commands that talk to the remote.
  const auth = credential ? credentialGitEnv(remote.plain, credential) : {};
  const repo = openRepo(options.cacheDir, { ...options, remoteUrl: remote.plain, remoteEnv: () => auth });
  const url = remote.plain;
  // A fresh clone writes `.git/config`: what it leaves is the known-good state.
  return locked(
    repo,
    async () => {
      if (!(options.remoteHeads && (await fetchedAlready(repo, options.remoteHeads)))) {
        await cloneOrFetch(repo, url, remote.shown, credential !== null);
      }
      const remoteRef = `refs/remotes/origin/${options.branch}`;
      if (await resolves(repo, remoteRef)) {
        await resetToRef(repo, options.branch, remoteRef);
        return { repo, head: (await headUnlocked(repo))!, createdBranch: false };
      }
      const base = options.baseBranch
        ? `refs/remotes/origin/${options.baseBranch}`
        : (await resolves(repo, 'refs/remotes/origin/HEAD'))
          ? 'refs/remotes/origin/HEAD'
          : await rootCommit(repo);
      await resetToRef(repo, options.branch, base);
      if (options.pushNewBranch === false) {
        return { repo, head: (await headUnlocked(repo))!, createdBranch: true };
      }
      try {
        await pushUnlocked(repo, options.branch);
        log.info({ url: remote.shown, branch: options.branch }, 'created the run branch on the remote');
        return { repo, head: (await headUnlocked(repo))!, createdBranch: true };
      } catch (error) {
        if (!(error instanceof PushRejectedError)) throw error;
        await fetchRemote(repo, url);
        await resetToRef(repo, options.branch, remoteRef);
        return { repo, head: (await headUnlocked(repo))!, createdBranch: false };
      }
    },
    { rerecord: true },
  );
}

/**
 * Pushes the branch to the clone's remote (the URL it was synced from) without force; throws
 * {@link PushRejectedError} when it is not a fast-forward.
 */
export async function pushFastForward(repo: WorkspaceRepo, branch: string): Promise<string> {
  return locked(repo, () => pushUnlocked(repo, branch));
}

async function pushUnlocked(repo: WorkspaceRepo, branch: string): Promise<string> {
  const url = repo.remoteUrl;
  if (!url) {
    throw new GitError(['push'], `${repo.dir} has no remote URL`, {
      hint: "push a clone made by syncWorkspace (its handle carries the run record's URL)",
    });
  }
  const args = ['push', '-q', url, `refs/heads/${branch}:refs/heads/${branch}`];
  try {
    await runGit(repo, args, { remote: true });
  } catch (error) {
    const message = (error as Error).message;
    if (/rejected|non-fast-forward|fetch first/i.test(message)) {
      throw new PushRejectedError(branch, message.trim(), { cause: error });
    }
    throw new GitError(args, message.trim(), { cause: error });
  }
  await runGit(repo, ['update-ref', `refs/remotes/origin/${branch}`, `refs/heads/${branch}`]);
  return (await headUnlocked(repo))!;
}

async function cloneOrFetch(
  repo: WorkspaceRepo,
  url: string,
  shown: string,
  withCredential: boolean,
): Promise<void> {
  try {
    if (!existsSync(path.join(repo.dir, '.git'))) {
      await mkdir(path.dirname(repo.dir), { recursive: true });
      await runGit(repo, ['clone', '-q', '--no-checkout', url, repo.dir], {
        cwd: path.dirname(repo.dir),
        remote: true,
      });
      return;
    }
    await fetchRemote(repo, url);
  } catch (error) {
    throw authenticationHint(error, shown, withCredential);
  }
}

/** A clone or fetch refused for want of (the right) credentials says where the harness takes them from. */
function authenticationHint(error: unknown, shown: string, withCredential: boolean): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (
    !/authentication failed|could not read username|terminal prompts disabled|returned error: 40[13]/i.test(
      message,
    )
  ) {
    return error;
  }
  return new GitError(['fetch', shown], message.trim(), {
    hint: withCredential
      ? `the remote refused the credential the harness holds for ${shown}: start the run again with --repo https://user:NEW_TOKEN@… (kept in the data dir), or set ${GIT_CREDENTIALS_VARIABLE}`
      : `the harness holds no credential for ${shown}: set ${GIT_CREDENTIALS_VARIABLE}="https://user:token@host/…" in this worker's environment (workers on other machines need it too), or use ~/.netrc or ${CREDENTIAL_HELPER_VARIABLE}`,
    cause: error,
  });
}

/**
 * The heads of `branches` under `prefix` in the repository (`refs/heads/` for its own branches), branch → sha: one
 * `for-each-ref`. A branch that does not exist is left out.
 */
export async function branchHeads(
  repo: WorkspaceRepo,
  prefix: 'refs/heads/' | 'refs/remotes/origin/',
  branches: readonly string[],
): Promise<Map<string, string>> {
  const wanted = new Set(branches);
  const out = await askGit(repo, [
    'for-each-ref',
    '--format=%(objectname) %(refname)',
    ...branches.map((branch) => `${prefix}${branch}`),
  ]);
  const heads = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [sha, ref] = line.split(' ');
    const branch = ref?.startsWith(prefix) ? ref.slice(prefix.length) : undefined;
    // A pattern also matches the refs below it: only the named branches count.
    if (sha && branch && wanted.has(branch)) heads.set(branch, sha);
  }
  return heads;
}

/** Whether the clone exists and its last fetch left exactly `heads` in `refs/remotes/origin/*`. */
async function fetchedAlready(repo: WorkspaceRepo, heads: ReadonlyMap<string, string>): Promise<boolean> {
  if (heads.size === 0 || !existsSync(path.join(repo.dir, '.git'))) return false;
  const tracking = await branchHeads(repo, 'refs/remotes/origin/', [...heads.keys()]);
  return [...heads].every(([branch, sha]) => tracking.get(branch) === sha);
}

/** Fetches the remote's branches into `refs/remotes/origin/*`, naming the URL and refspec explicitly. */
async function fetchRemote(repo: WorkspaceRepo, url: string): Promise<void> {
  await runGit(repo, ['fetch', '-q', '--prune', url, '+refs/heads/*:refs/remotes/origin/*'], {
    remote: true,
  });
}

async function resolves(repo: WorkspaceRepo, ref: string): Promise<boolean> {
  const out = await askGit(repo, ['rev-parse', '--verify', '-q', `${ref}^{commit}`]);
  return out.trim() !== '';
}

async function resetToRef(repo: WorkspaceRepo, branch: string, ref: string): Promise<void> {
  await runGit(repo, ['checkout', '-q', '-f', '-B', branch, ref]);
  await runGit(repo, ['clean', '-q', '-ffd']);
}

/** A new empty root commit (for a remote with no commits at all). */
async function rootCommit(repo: WorkspaceRepo): Promise<string> {
  await runGit(repo, ['read-tree', '--empty']);
  const tree = (await runGit(repo, ['write-tree'])).trim();
  const sha = await runGit(repo, ['commit-tree', tree, '-m', 'nightshift: start of the run branch']);
  return sha.trim();
}
