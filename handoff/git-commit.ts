/**
 * Commits a session asks for. `.git` is read-only inside the sandbox, so a session's commits are made here, by
 * the harness's git (its own environment and settings, the repository's `.git` checked first): everything is
 * staged as `git add -A` would (`.gitignore` respected), under the agent's identity, with the model's message
 * and the structured `Nightshift-*` trailers.
 */
import { z } from 'zod';
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { FeatureId, type IntegrityViolation } from './formats.js';
import { askGit, type GitIdentity, headUnlocked, locked, runGit, type WorkspaceRepo } from './git.js';

const log = moduleLogger('handoff/git-commit');

/** Longest commit message accepted from a session. */
export const MAX_COMMIT_MESSAGE = 10_000;

/** Whose commit it is, for the trailers. */
export const SessionCommitInfo = z.object({
  role: z.string().regex(/^[a-z][a-z0-9-]*$/),
  runId: z.string().min(1),
  session: z.number().int().nonnegative(),
  featureId: FeatureId.optional(),
});
export type SessionCommitInfo = z.infer<typeof SessionCommitInfo>;

/** What {@link commitWork} needs. */
export interface CommitWorkInput {
  /** The session's message: a subject line, optionally a blank line and a body. */
  message: string;
  /** Author and committer (the agent's identity, not the harness's). */
  identity: GitIdentity;
  info: SessionCommitInfo;
  /** Workspace-relative paths the session may not change (a staged change under one refuses the commit). */
  protectedPaths: readonly string[];
}

/** One changed file of a commit. */
export interface CommittedFile {
  /** `A`dded, `M`odified, `D`eleted, `T`ype changed. */
  status: string;
  path: string;
}

/** The commit made. */
export interface CommitWorkResult {
  sha: string;
  shortSha: string;
  files: CommittedFile[];
}

/** The work tree matches the last commit: there is nothing to commit. */
export class NothingToCommitError extends NightshiftError {
  constructor() {
    super('NOTHING_TO_COMMIT', 'nothing to commit: the working tree matches the last commit', {
      hint: 'change files first; ignored files (.gitignore) are never committed',
    });
  }
}

/** The session changed a path only the harness may change; nothing was committed. */
export class ProtectedChangeError extends NightshiftError {
  readonly paths: string[];

  constructor(paths: string[]) {
    super(
      'PROTECTED_PATH_CHANGED',
      `nothing committed: ${paths.join(', ')} ${paths.length === 1 ? 'is' : 'are'} protected (only the harness changes ${paths.length === 1 ? 'it' : 'them'})`,
      {
        hint: 'put the file back as it was in the last commit (git show HEAD:<path> > <path>), then commit again',
      },
    );
    this.paths = paths;
  }
}

/**
 * The message as committed: the session's subject and body (lines that look like `Nightshift-*` trailers
 * dropped, so a session cannot pass for the harness), then the harness's trailers.
 */
export function sessionCommitMessage(message: string, info: SessionCommitInfo): string {
  const parsed = SessionCommitInfo.parse(info);
  const lines = message
    .slice(0, MAX_COMMIT_MESSAGE)
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .filter((line) => !/^\s*Nightshift-[A-Za-z]+\s*:/i.test(line));
  const [subject = '', ...rest] = lines.join('\n').trim().split('\n');
  const body = rest.join('\n').trim();
  const trailers = [
    `Nightshift-Role: ${parsed.role}`,
    `Nightshift-Run: ${parsed.runId}`,
    `Nightshift-Session: ${parsed.session}`,
    ...(parsed.featureId ? [`Nightshift-Feature: ${parsed.featureId}`] : []),
  ];
  return [subject.trim() || 'checkpoint', ...(body ? ['', body] : []), '', ...trailers].join('\n');
}

function normalise(p: string): string {
  return p.normalize('NFC').toLowerCase().replace(/\/+$/, '');
}

function underProtected(file: string, protectedPaths: readonly string[]): boolean {
  const name = normalise(file);
  return protectedPaths.some((p) => {
    const root = normalise(p);
    return name === root || name.startsWith(`${root}/`);
  });
}

/** Parses `git diff --name-status -z --no-renames`: status and path, NUL-separated. */
function parseNameStatus(out: string): CommittedFile[] {
  const fields = out.split('\0').filter((field) => field !== '');
  const files: CommittedFile[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    files.push({ status: (fields[i] as string).slice(0, 1), path: fields[i + 1] as string });
  }
  return files;
}

/**
 * Stages everything and commits it as the session's commit. Throws {@link NothingToCommitError} when nothing
 * changed and {@link ProtectedChangeError} (index left as it was) when a protected path changed.
 */
export async function commitWork(repo: WorkspaceRepo, input: CommitWorkInput): Promise<CommitWorkResult> {
  const message = sessionCommitMessage(input.message, input.info);
  return locked(repo, async () => {
    await runGit(repo, ['add', '-A']);
    const files = parseNameStatus(
      await runGit(repo, ['diff', '--cached', '--name-status', '-z', '--no-renames']),
    );
    if (files.length === 0) throw new NothingToCommitError();
    const refused = files.filter((file) => underProtected(file.path, input.protectedPaths));
    if (refused.length > 0) {
      await runGit(repo, ['reset', '-q']);
      throw new ProtectedChangeError([...new Set(refused.map((file) => file.path))]);
    }
    await runGit(repo, ['commit', '-q', '--no-verify', '-m', message], { identity: input.identity });
    const sha = (await headUnlocked(repo)) as string;
    log.info({ dir: repo.dir, sha, role: input.info.role, files: files.length }, 'session commit');
    return { sha, shortSha: sha.slice(0, 12), files };
  });
}

/**
 * Puts protected paths back as they are in HEAD (tracked files restored, untracked ones removed) before the
 * harness commits a session's leftovers, so a change the `commit` tool refused is not committed by the harness
 * instead. Returns a `protected_path_changed` violation naming what was put back, or null.
 */
export async function restoreProtectedPaths(
  repo: WorkspaceRepo,
  paths: readonly string[],
): Promise<IntegrityViolation | null> {
  if (paths.length === 0) return null;
  return locked(repo, async () => {
    const status = await runGit(repo, [
      'status',
      '--porcelain',
      '-z',
      '--no-renames',
      '--untracked-files=all',
      '--',
      ...paths,
    ]);
    const changed = status
      .split('\0')
      .filter((entry) => entry.length > 3)
      .map((entry) => entry.slice(3));
    if (changed.length === 0) return null;
    await runGit(repo, ['reset', '-q', '--', ...paths]);
    for (const p of paths) await askGit(repo, ['checkout', '-q', 'HEAD', '--', p]);
    await runGit(repo, ['clean', '-q', '-ffdx', '--', ...paths]);
    log.warn({ dir: repo.dir, changed }, 'protected paths changed by the session; put back');
    return {
      kind: 'protected_path_changed',
      detail: `${changed.slice(0, 10).join(', ')}${changed.length > 10 ? ` and ${changed.length - 10} more` : ''} changed by the session (only the harness may); put back as in the last commit`,
    };
  });
}
