import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import type { IntegrityViolation } from './formats.js';
import {
  askGit,
  commitExists,
  currentBranch,
  headUnlocked,
  isAncestor,
  locked,
  openRepo,
  runGit,
  type WorkspaceRepo,
} from './git.js';
import { withoutCredentials } from './remote-url.js';
import { readWorkspaceText, removeWorkspacePath, writeWorkspaceFile } from './safe-fs.js';

const log = moduleLogger('handoff/git-history');

/** In the mirror: the workspace HEAD it was last refreshed at (a plain file git ignores). */
const BACKED_UP_HEAD = 'nightshift-backed-up-head';

/** Options of {@link backupRepo}. */
export interface BackupOptions {
  /** The workspace's HEAD now: when the mirror was last refreshed at this same HEAD, nothing is fetched. */
  head?: string;
}

/**
 * Refreshes a mirror of the workspace's repository in `backupDir` (a bare `git clone --mirror`, no hard links,
 * then `git fetch --prune` on later calls). Take it before each session: it is what lets
 * {@link verifyDescendsFrom} restore a workspace whose `.git` the session destroyed. It only reads the workspace
 * and holds the mirror's mutex, not the workspace's: the session's preparation runs beside it.
 */
export async function backupRepo(
  repo: WorkspaceRepo,
  backupDir: string,
  options: BackupOptions = {},
): Promise<void> {
  const target = path.resolve(backupDir);
  const mirror = openRepo(target, { identity: repo.identity, bare: true });
  await locked(mirror, async () => {
    if (!existsSync(path.join(target, 'HEAD'))) {
      await mkdir(path.dirname(target), { recursive: true });
      await runGit(repo, ['clone', '-q', '--mirror', '--no-hardlinks', repo.dir, target], {
        cwd: path.dirname(target),
      });
    } else if (
      options.head &&
      (await readWorkspaceText(target, BACKED_UP_HEAD).catch(() => '')) === options.head
    ) {
      return;
    } else {
      await runGit(mirror, ['fetch', '-q', '--prune', repo.dir, '+refs/*:refs/*']);
    }
    // Kept to rebuild the clone's remote; never with credentials (an adopted repository's URL may carry some).
    const origin = withoutCredentials((await askGit(repo, ['config', '--get', 'remote.origin.url'])).trim());
    if (origin !== '') await runGit(mirror, ['config', 'nightshift.originurl', origin]);
    if (options.head) await writeWorkspaceFile(target, BACKED_UP_HEAD, options.head);
  });
}

/** Options of {@link verifyDescendsFrom}. */
export interface VerifyOptions {
  /** The run branch: after a clean session HEAD is put back on it if the session switched branches. */
  branch?: string;
  /** The mirror kept by {@link backupRepo}, used when `.git` was destroyed or re-initialised. */
  backupDir?: string;
  /** Names the ref that keeps a rejected head (`refs/nightshift/rejected/<label>`); default: a timestamp. */
  label?: string;
}

/** What {@link verifyDescendsFrom} found: fine, or a `history_rewritten` violation and whether it was repaired. */
export type VerifyResult =
  | { ok: true }
  | { ok: false; violation: IntegrityViolation; restored: boolean; rejectedRef?: string };

/**
 * Checks that HEAD descends from the session's start commit. When it does not (reset to an older commit,
 * amend, rebase, `.git` re-initialised), the branch is reset to the start commit and untracked files removed;
 * the rewritten head is kept under `refs/nightshift/rejected/…` so no commit is lost. A destroyed `.git` is
 * rebuilt from the backup mirror when one holds the start commit.
 */
export async function verifyDescendsFrom(
  repo: WorkspaceRepo,
  startSha: string,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const hasGit = existsSync(path.join(repo.dir, '.git'));
  if (!hasGit) return restoreDestroyed(repo, startSha, options, hasGit);
  // The usual case first: HEAD descends from the start commit (which therefore still exists).
  const descends = await locked(repo, async () => {
    const headSha = await headUnlocked(repo);
    if (headSha === null || !(await isAncestor(repo, startSha, headSha))) return false;
    const branch = await currentBranch(repo);
    if (options.branch && branch !== options.branch) {
      await runGit(repo, ['checkout', '-q', '-B', options.branch]);
      log.warn(
        { dir: repo.dir, from: branch, to: options.branch },
        'moved the session head back onto the run branch',
      );
    }
    return true;
  });
  if (descends) return { ok: true };
  if (!(await commitExists(repo, startSha))) return restoreDestroyed(repo, startSha, options, hasGit);
  return locked(repo, async () => {
    const headSha = await headUnlocked(repo);
    if (headSha !== null && (await isAncestor(repo, startSha, headSha))) return { ok: true } as const;
    const label = options.label ?? new Date().toISOString().replace(/[:.]/g, '-');
    const rejectedRef = `refs/nightshift/rejected/${label}`;
    if (headSha !== null) await runGit(repo, ['update-ref', rejectedRef, headSha]);
    await resetTo(repo, startSha, options.branch);
    const detail =
      `HEAD ${headSha ?? '(no commit)'} does not descend from the session's start commit ${startSha} ` +
      `(history rewritten: reset, amend or rebase); rolled back to ${startSha}` +
      (headSha !== null ? `; the rewritten head is kept at ${rejectedRef}` : '');
    log.warn({ dir: repo.dir, startSha, headSha }, 'history rewritten; rolled back');
    return {
      ok: false,
      restored: true,
      ...(headSha !== null ? { rejectedRef } : {}),
      violation: { kind: 'history_rewritten', detail },
    } as const;
  });
}

async function resetTo(repo: WorkspaceRepo, sha: string, branch: string | undefined): Promise<void> {
  if (branch) await runGit(repo, ['checkout', '-q', '-f', '-B', branch, sha]);
  else await runGit(repo, ['reset', '-q', '--hard', sha]);
  await runGit(repo, ['clean', '-q', '-ffd']);
}

async function restoreDestroyed(
  repo: WorkspaceRepo,
  startSha: string,
  options: VerifyOptions,
  hadGit: boolean,
): Promise<VerifyResult> {
  const what = hadGit ? '.git was re-initialised or its history removed' : '.git was deleted';
  const backup = options.backupDir ? path.resolve(options.backupDir) : undefined;
  const backupRepoHandle = backup ? openRepo(backup, { identity: repo.identity, bare: true }) : undefined;
  if (!backup || !backupRepoHandle || !existsSync(path.join(backup, 'HEAD'))) {
    return notRestored(`${what}: the start commit ${startSha} is gone and no backup mirror exists`);
  }
  if (!(await commitExists(backupRepoHandle, startSha))) {
    return notRestored(
      `${what}: the start commit ${startSha} is gone and the backup mirror does not hold it`,
    );
  }
  const rebuild = async () => {
    await removeWorkspacePath(repo.dir, '.git');
    await runGit(repo, ['init', '-q', '-b', options.branch ?? 'main', repo.dir]);
    await runGit(repo, ['fetch', '-q', '--update-head-ok', backup, '+refs/*:refs/*']);
    await resetTo(repo, startSha, options.branch ?? 'main');
    const origin = await askGit(backupRepoHandle, ['config', '--get', 'nightshift.originurl']);
    if (origin.trim() !== '') await runGit(repo, ['remote', 'add', 'origin', origin.trim()]);
    log.error({ dir: repo.dir, startSha }, `${what}; rebuilt from the backup mirror`);
    return {
      ok: false,
      restored: true,
      violation: {
        kind: 'history_rewritten',
        detail: `${what}; the repository was rebuilt from the backup mirror at the start commit ${startSha}`,
      },
    } as const;
  };
  // The rebuilt `.git` (fresh config and hooks from `git init`) is the new known-good state.
  return locked(repo, rebuild, { rerecord: true });
}

function notRestored(detail: string): VerifyResult {
  log.error({ detail }, 'history destroyed and not restorable');
  return { ok: false, restored: false, violation: { kind: 'history_rewritten', detail } };
}
