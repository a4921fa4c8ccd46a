import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { moduleLogger } from '../core/log.js';
import { GitError } from './errors.js';
import { FeatureId } from './formats.js';
import { ensureHarnessAttributes } from './git-attributes.js';
import { gitBinary, harnessGitConfig, harnessGitEnv } from './git-env.js';
import { enforceGitDir, type GitGuard, recordGitDir } from './git-guard.js';
import { recoverStaleLocks } from './git-lock.js';
import { runGitProcess } from './git-process.js';
import { ensureDefaultIgnores } from './gitignore.js';
import { withRepoLock } from './mutex.js';
import { lstatOrNull } from './safe-fs.js';

const log = moduleLogger('handoff/git');

/** Author and committer of every harness commit. */
export const GitIdentity = z.object({ name: z.string().min(1), email: z.string().min(1) });
export type GitIdentity = z.infer<typeof GitIdentity>;

/** The default identity: `nightshift <nightshift@localhost>` (never the machine's global git config). */
export const DEFAULT_IDENTITY: GitIdentity = { name: 'nightshift', email: 'nightshift@localhost' };

/** A handle on one workspace repository; every operation on it goes through the repository's mutex. */
export interface WorkspaceRepo {
  /** Absolute path of the work tree (of the repository itself when `bare`). */
  readonly dir: string;
  /** Who harness commits are by. */
  readonly identity: GitIdentity;
  /** A lock file older than this is removed even while some git process works in the repository. */
  readonly staleLockMs: number;
  /** Keeps `.git` known-good: compared with its record before every harness git command. */
  readonly guard?: GitGuard | undefined;
  /** A bare repository (the backup mirror): `dir` is the git dir, there is no work tree. */
  readonly bare?: boolean | undefined;
  /** The remote a clone syncs with, from the run record (never read from the clone's `.git/config`), no userinfo. */
  readonly remoteUrl?: string | undefined;
  /**
   * Extra environment of the git commands that talk to `remoteUrl`: the credential as an HTTP header
   * (handoff/remote-url.ts). A function, so the handle never shows it when logged or serialised.
   */
  readonly remoteEnv?: (() => Record<string, string>) | undefined;
}

/** Options of {@link openRepo} and {@link ensureRepo}. */
export interface RepoOptions {
  /** Author and committer of harness commits (default {@link DEFAULT_IDENTITY}). */
  identity?: GitIdentity;
  /** See {@link WorkspaceRepo.staleLockMs} (default 60 s). */
  staleLockMs?: number;
  /** See {@link WorkspaceRepo.guard}. */
  guard?: GitGuard;
  /** See {@link WorkspaceRepo.bare}. */
  bare?: boolean;
  /** See {@link WorkspaceRepo.remoteUrl}. */
  remoteUrl?: string;
  /** See {@link WorkspaceRepo.remoteEnv}. */
  remoteEnv?: () => Record<string, string>;
}

/** A handle on an existing directory (no git command is run). */
export function openRepo(dir: string, options: RepoOptions = {}): WorkspaceRepo {
  return {
    dir: path.resolve(dir),
    identity: GitIdentity.parse(options.identity ?? DEFAULT_IDENTITY),
    staleLockMs: options.staleLockMs ?? 60_000,
    guard: options.guard,
    bare: options.bare,
    remoteUrl: options.remoteUrl,
    remoteEnv: options.remoteEnv,
  };
}

/** How one git command runs: against a remote (credentials allowed), or as someone else (the agent's commits). */
export interface GitCommandOptions {
  /** Talks to a remote: the operator's SSH agent, proxies and credential helper are allowed. */
  remote?: boolean;
  /** Author and committer instead of the repository handle's identity. */
  identity?: GitIdentity;
  /** Working directory (default the repository's directory; `clone` runs in the parent). */
  cwd?: string;
}

/**
 * The `-c` flags of a harness git command: the harness's own settings (no hook, fsmonitor, pager, editor, askpass
 * or credential helper of the repository's). With the environment built from scratch (no key), and the
 * repository named explicitly (`--git-dir`, `--work-tree`) so `core.worktree` cannot send git elsewhere.
 */
function configFlags(repo: Pick<WorkspaceRepo, 'dir' | 'identity'>, options: GitCommandOptions): string[] {
  return harnessGitConfig({
    identity: options.identity ?? repo.identity,
    trusted: repo.dir,
    ...(options.remote ? { remote: true } : {}),
  }).flatMap((setting) => ['-c', setting]);
}

/** `--git-dir` (and `--work-tree`) for the repository: git never discovers its location from the workspace. */
export function locationArgs(repo: Pick<WorkspaceRepo, 'dir' | 'bare'>): string[] {
  return repo.bare
    ? [`--git-dir=${repo.dir}`]
    : [`--git-dir=${path.join(repo.dir, '.git')}`, `--work-tree=${repo.dir}`];
}

/**
 * Runs git with `args` in the repository and returns stdout; wraps failures in {@link GitError}. A work tree's
 * `.git/info/attributes` ends with the harness's override first (handoff/git-attributes.ts).
 */
export async function runGit(
  repo: WorkspaceRepo,
  args: string[],
  options: GitCommandOptions = {},
): Promise<string> {
  const location = args[0] === 'clone' || args[0] === 'init' ? [] : locationArgs(repo);
  // Before any command can check out or stage a file: committed attributes never transform content.
  if (location.length > 0 && !repo.bare) {
    await ensureHarnessAttributes(repo.dir, { recordFile: repo.guard?.recordFile });
  }
  try {
    return await runGitProcess({
      binary: gitBinary(),
      args: [...configFlags(repo, options), ...location, ...args],
      cwd: options.cwd ?? repo.dir,
      env: {
        ...harnessGitEnv(options.remote ? { remote: true } : {}),
        ...(options.remote ? repo.remoteEnv?.() : {}),
      },
    });
  } catch (error) {
    throw new GitError(args, (error as Error).message.trim(), { cause: error });
  }
}

/** {@link runGit} for questions whose failure means "no": returns '' instead of throwing. */
export async function askGit(repo: WorkspaceRepo, args: string[]): Promise<string> {
  return runGit(repo, args).catch(() => '');
}

/** Options of {@link locked}. */
export interface LockedOptions {
  /**
   * `fn` changes `.git/config` or another guarded path itself (init, clone, remote add): the guard records
   * the state it leaves as the new known-good one.
   */
  rerecord?: boolean;
}

/**
 * Runs `fn` under the repository's mutex (re-entrant), after removing stale lock files and putting back a
 * tampered `.git` (handoff/git-guard.ts). Every harness git command on a repository runs inside one.
 */
export async function locked<T>(
  repo: WorkspaceRepo,
  fn: () => Promise<T>,
  options: LockedOptions = {},
): Promise<T> {
  return withRepoLock(repo.dir, async (reentered) => {
    // `lstat`: a `.git` replaced by a (dangling) link must reach the guard, which removes it.
    if (!reentered && !repo.bare && (await lstatOrNull(path.join(repo.dir, '.git')))) {
      if (repo.guard) await enforceGitDir(repo.dir, repo.guard);
      if (existsSync(path.join(repo.dir, '.git'))) await recoverStaleLocks(repo.dir, repo.staleLockMs);
    }
    const result = await fn();
    if (options.rerecord && repo.guard && existsSync(path.join(repo.dir, '.git'))) {
      await recordGitDir(repo.dir, repo.guard.recordFile);
    }
    return result;
  });
}

/** Opens the repository at `dir`, creating the directory and `git init -b main` when it is not one yet. */
export async function ensureRepo(
  dir: string,
  options: RepoOptions & { branch?: string } = {},
): Promise<WorkspaceRepo> {
  const repo = openRepo(dir, options);
  await mkdir(repo.dir, { recursive: true });
  await locked(
    repo,
    async () => {
      if (existsSync(path.join(repo.dir, '.git'))) return;
      await runGit(repo, ['init', '-q', '-b', options.branch ?? 'main', repo.dir]);
      log.info({ dir: repo.dir }, 'initialised a git repository');
    },
    { rerecord: true },
  );
  return repo;
}

/** The sha of HEAD, or null on a branch with no commits yet. */
export async function head(repo: WorkspaceRepo): Promise<string | null> {
  return locked(repo, () => headUnlocked(repo));
}

/** {@link head} for callers already holding the repository's mutex. */
export async function headUnlocked(repo: WorkspaceRepo): Promise<string | null> {
  const out = await askGit(repo, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  return out.trim() === '' ? null : out.trim();
}

/** The current branch name, or null when HEAD is detached. */
export async function currentBranch(repo: WorkspaceRepo): Promise<string | null> {
  const out = await locked(repo, () => askGit(repo, ['symbolic-ref', '--short', '-q', 'HEAD']));
  return out.trim() === '' ? null : out.trim();
}

/** True when the work tree has no changes and no untracked files (ignored files do not count). */
export async function isClean(repo: WorkspaceRepo): Promise<boolean> {
  return locked(repo, async () => (await runGit(repo, ['status', '--porcelain'])).trim() === '');
}

/** What a checkpoint commit records. */
export const CheckpointInfo = z.object({
  /** Who the commit is for: a role name, or `harness` for the harness's own changes. */
  role: z.string().regex(/^[a-z][a-z0-9-]*$/),
  runId: z.string().min(1),
  session: z.number().int().nonnegative(),
  featureId: FeatureId.optional(),
  /** First line: the subject; further lines: the body. */
  summary: z.string(),
  /** Work in progress: the session was interrupted and the next one continues. */
  wip: z.boolean().optional(),
  /** Commit only these workspace-relative paths (default: everything, as `git add -A`). */
  paths: z.array(z.string().min(1)).optional(),
});
export type CheckpointInfo = z.infer<typeof CheckpointInfo>;

/** The structured commit message: `nightshift(<role>): <feature> <subject>`, body, then `Nightshift-*` trailers. */
export function checkpointMessage(input: CheckpointInfo): string {
  const info = CheckpointInfo.parse(input);
  const [firstLine = '', ...rest] = info.summary.trim().split('\n');
  const words = [info.featureId, info.wip ? 'WIP:' : undefined, firstLine.trim() || 'checkpoint'].filter(
    Boolean,
  );
  let subject = `nightshift(${info.role}): ${words.join(' ')}`;
  if (subject.length > 100) subject = `${subject.slice(0, 99)}…`;
  const trailers = [
    `Nightshift-Role: ${info.role}`,
    `Nightshift-Run: ${info.runId}`,
    `Nightshift-Session: ${info.session}`,
    ...(info.featureId ? [`Nightshift-Feature: ${info.featureId}`] : []),
    ...(info.wip ? ['Nightshift-Wip: true'] : []),
  ];
  const body = rest.join('\n').trim();
  return [subject, ...(body ? ['', body] : []), '', ...trailers].join('\n');
}

/** The `Nightshift-*` trailers of a commit message (keys without the prefix, lower-case: role, run, session…). */
export function parseCheckpointTrailers(message: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of message.matchAll(/^Nightshift-([A-Za-z]+): (.*)$/gm)) {
    out[match[1]!.toLowerCase()] = match[2]!.trim();
  }
  return out;
}

/** Stages everything (or `paths`) and commits with the structured message; returns the sha, or null when nothing changed. */
export async function checkpoint(repo: WorkspaceRepo, info: CheckpointInfo): Promise<string | null> {
  return locked(repo, () => checkpointUnlocked(repo, info));
}

/** {@link checkpoint} for callers already holding the repository's mutex. */
export async function checkpointUnlocked(repo: WorkspaceRepo, info: CheckpointInfo): Promise<string | null> {
  const message = checkpointMessage(info);
  const pathspec = info.paths ? ['--', ...info.paths] : [];
  // `add -A` must never take dependencies, build output or app data: the defaults join the workspace's ignores.
  if (!repo.bare && !info.paths) await ensureDefaultIgnores(repo.dir);
  // A WIP checkpoint after a session usually finds a clean tree: one `status` says so (instead of add + diff).
  if (info.wip && !info.paths && (await runGit(repo, ['status', '--porcelain'])).trim() === '') return null;
  await runGit(repo, ['add', '-A', ...pathspec]);
  const staged = await runGit(repo, ['diff', '--cached', '--name-only', ...pathspec]);
  if (staged.trim() === '') return null;
  await runGit(repo, ['commit', '-q', '--no-verify', '-m', message, ...pathspec]);
  const sha = await headUnlocked(repo);
  log.info(
    { dir: repo.dir, sha, role: info.role, session: info.session, wip: info.wip ?? false },
    'checkpoint',
  );
  return sha;
}

/** The commits reachable from HEAD but not from `startSha`, oldest first. */
export async function commitsSince(repo: WorkspaceRepo, startSha: string): Promise<string[]> {
  return locked(repo, async () => {
    const out = await runGit(repo, ['rev-list', '--reverse', `${startSha}..HEAD`]);
    return out.split('\n').filter((line) => line.trim() !== '');
  });
}

/** Options of {@link rollback}. */
export interface RollbackOptions {
  /** Also remove ignored files (`node_modules`, build output). Default false: they are kept to spare reinstalls. */
  removeIgnored?: boolean;
}

/** Hard-resets the work tree and current branch to `sha` and removes untracked files (ignored ones are kept by default). */
export async function rollback(
  repo: WorkspaceRepo,
  sha: string,
  options: RollbackOptions = {},
): Promise<void> {
  await locked(repo, () => rollbackUnlocked(repo, sha, options));
}

/** {@link rollback} for callers already holding the repository's mutex. */
export async function rollbackUnlocked(
  repo: WorkspaceRepo,
  sha: string,
  options: RollbackOptions = {},
): Promise<void> {
  await runGit(repo, ['reset', '-q', '--hard', sha]);
  await runGit(repo, ['clean', '-q', options.removeIgnored ? '-ffdx' : '-ffd']);
  log.info({ dir: repo.dir, sha }, 'rolled back');
}

/** A full SHA-1 or SHA-256 object name, as git prints it. */
const FULL_OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** True when `ancestor` is `descendant` or one of its ancestors (false when either is unknown). */
export async function isAncestor(
  repo: WorkspaceRepo,
  ancestor: string,
  descendant: string,
): Promise<boolean> {
  return locked(repo, async () => {
    const base = (await askGit(repo, ['merge-base', ancestor, descendant])).trim();
    // A full object name (what the harness keeps) is compared as it is; anything else is resolved first.
    const full = FULL_OBJECT_NAME.test(ancestor)
      ? ancestor
      : (await askGit(repo, ['rev-parse', '--verify', '-q', `${ancestor}^{commit}`])).trim();
    return base !== '' && base === full;
  });
}

/** True when the commit exists in the repository's object database. */
export async function commitExists(repo: WorkspaceRepo, sha: string): Promise<boolean> {
  const out = await locked(repo, () => askGit(repo, ['rev-parse', '--verify', '-q', `${sha}^{commit}`]));
  return out.trim() !== '';
}

/**
 * The content of `file` at commit `sha`, or null when the file does not exist there. `cat-file blob` shows the
 * stored bytes: no textconv or filter a `.gitattributes` could name.
 */
export async function showFile(repo: WorkspaceRepo, sha: string, file: string): Promise<string | null> {
  return locked(repo, async () => {
    try {
      return await runGit(repo, ['cat-file', 'blob', `${sha}:${file}`]);
    } catch {
      return null;
    }
  });
}
