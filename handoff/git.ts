import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type SimpleGit, simpleGit } from 'simple-git';
import { z } from 'zod';
import { moduleLogger } from '../core/log.js';
import { GitError } from './errors.js';
import { FeatureId } from './formats.js';
import { recoverStaleLocks } from './git-lock.js';
import { withRepoLock } from './mutex.js';

const log = moduleLogger('handoff/git');

/** Author and committer of every harness commit. */
export const GitIdentity = z.object({ name: z.string().min(1), email: z.string().min(1) });
export type GitIdentity = z.infer<typeof GitIdentity>;

/** The default identity: `nightshift <nightshift@localhost>` (never the machine's global git config). */
export const DEFAULT_IDENTITY: GitIdentity = { name: 'nightshift', email: 'nightshift@localhost' };

/** A handle on one workspace repository; every operation on it goes through the repository's mutex. */
export interface WorkspaceRepo {
  /** Absolute path of the work tree. */
  readonly dir: string;
  /** Who harness commits are by. */
  readonly identity: GitIdentity;
  /** A lock file older than this is removed even while some git process works in the repository. */
  readonly staleLockMs: number;
}

/** Options of {@link openRepo} and {@link ensureRepo}. */
export interface RepoOptions {
  /** Author and committer of harness commits (default {@link DEFAULT_IDENTITY}). */
  identity?: GitIdentity;
  /** See {@link WorkspaceRepo.staleLockMs} (default 60 s). */
  staleLockMs?: number;
}

// Variables simple-git refuses to pass through (it guards GIT_* and the editor/pager family).
const GUARDED_ENV = new Set(['EDITOR', 'VISUAL', 'PAGER', 'PREFIX', 'SSH_ASKPASS']);

/** The environment git runs with: the process's, without GIT_* and editor/pager variables, with a C locale. */
export function gitEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined || key.toUpperCase().startsWith('GIT_') || GUARDED_ENV.has(key.toUpperCase()))
      continue;
    env[key] = value;
  }
  env.LC_ALL = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  return env;
}

/** A handle on an existing directory (no git command is run). */
export function openRepo(dir: string, options: RepoOptions = {}): WorkspaceRepo {
  return {
    dir: path.resolve(dir),
    identity: GitIdentity.parse(options.identity ?? DEFAULT_IDENTITY),
    staleLockMs: options.staleLockMs ?? 60_000,
  };
}

/**
 * A simple-git client for the repository. Hooks and fsmonitor are switched off for every command, so a
 * session that planted a hook in `.git/hooks` cannot run code inside a harness commit or reset.
 */
export function gitClient(repo: Pick<WorkspaceRepo, 'dir' | 'identity'>, cwd: string = repo.dir): SimpleGit {
  return simpleGit({
    baseDir: cwd,
    config: [
      `user.name=${repo.identity.name}`,
      `user.email=${repo.identity.email}`,
      'commit.gpgsign=false',
      'core.hooksPath=/dev/null',
      'core.fsmonitor=false',
    ],
    unsafe: { allowUnsafeHooksPath: true, allowUnsafeFsMonitor: true },
    allowEnvironment: ['GIT_TERMINAL_PROMPT'],
  }).env(gitEnv());
}

/** Runs git with `args` in the repository and returns stdout; wraps failures in {@link GitError}. */
export async function runGit(repo: WorkspaceRepo, args: string[], cwd?: string): Promise<string> {
  try {
    return await gitClient(repo, cwd).raw(args);
  } catch (error) {
    throw new GitError(args, (error as Error).message.trim(), { cause: error });
  }
}

/** Runs `fn` under the repository's mutex, after removing stale lock files. */
export async function locked<T>(repo: WorkspaceRepo, fn: () => Promise<T>): Promise<T> {
  return withRepoLock(repo.dir, async () => {
    if (existsSync(path.join(repo.dir, '.git'))) await recoverStaleLocks(repo.dir, repo.staleLockMs);
    return fn();
  });
}

/** Opens the repository at `dir`, creating the directory and `git init -b main` when it is not one yet. */
export async function ensureRepo(
  dir: string,
  options: RepoOptions & { branch?: string } = {},
): Promise<WorkspaceRepo> {
  const repo = openRepo(dir, options);
  await mkdir(repo.dir, { recursive: true });
  await locked(repo, async () => {
    if (existsSync(path.join(repo.dir, '.git'))) return;
    await runGit(repo, ['init', '-q', '-b', options.branch ?? 'main']);
    log.info({ dir: repo.dir }, 'initialised a git repository');
  });
  return repo;
}

/** The sha of HEAD, or null on a branch with no commits yet. */
export async function head(repo: WorkspaceRepo): Promise<string | null> {
  return locked(repo, () => headUnlocked(repo));
}

/** {@link head} for callers already holding the repository's mutex. */
export async function headUnlocked(repo: WorkspaceRepo): Promise<string | null> {
  const out = await gitClient(repo)
    .raw(['rev-parse', '--verify', '-q', 'HEAD^{commit}'])
    .catch(() => '');
  return out.trim() === '' ? null : out.trim();
}

/** The current branch name, or null when HEAD is detached. */
export async function currentBranch(repo: WorkspaceRepo): Promise<string | null> {
  const out = await gitClient(repo)
    .raw(['symbolic-ref', '--short', '-q', 'HEAD'])
    .catch(() => '');
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

/** True when `ancestor` is `descendant` or one of its ancestors (false when either is unknown). */
export async function isAncestor(
  repo: WorkspaceRepo,
  ancestor: string,
  descendant: string,
): Promise<boolean> {
  const base = await gitClient(repo)
    .raw(['merge-base', ancestor, descendant])
    .catch(() => '');
  const full = await gitClient(repo)
    .raw(['rev-parse', '--verify', '-q', `${ancestor}^{commit}`])
    .catch(() => '');
  return base.trim() !== '' && base.trim() === full.trim();
}

/** True when the commit exists in the repository's object database. */
export async function commitExists(repo: WorkspaceRepo, sha: string): Promise<boolean> {
  const out = await gitClient(repo)
    .raw(['rev-parse', '--verify', '-q', `${sha}^{commit}`])
    .catch(() => '');
  return out.trim() !== '';
}

/** The content of `file` at commit `sha`, or null when the file does not exist there. */
export async function showFile(repo: WorkspaceRepo, sha: string, file: string): Promise<string | null> {
  try {
    return await gitClient(repo).show([`${sha}:${file}`]);
  } catch {
    return null;
  }
}
