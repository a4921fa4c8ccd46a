/**
 * The known-good `.git`: the parts of a repository that can make git run a program or read outside the
 * workspace — `config` (drivers, includes, url rewrites, `core.worktree`…), `info/` (attributes, grafts,
 * sparse-checkout), `hooks/`, `commondir`, `objects/info/alternates`, `shallow` — are recorded in the data dir
 * when the harness creates, clones or adopts the repository (or, for a workspace from before, the first time
 * a session uses it), and compared before every harness git command. Anything different is put back as
 * recorded and reported as a `git_config_tampered` violation; the run goes on.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { withOverride } from './attributes-override.js';
import type { IntegrityViolation } from './formats.js';
import {
  describeChange,
  type GitDirEntry,
  GitDirRecord,
  type ScannedEntry,
  sameEntry,
  scanGitDir,
} from './git-dir-scan.js';
import {
  lstatOrNull,
  makeWorkspaceDir,
  makeWorkspaceLink,
  readWorkspaceFile,
  removeWorkspacePath,
  writeWorkspaceFile,
} from './safe-fs.js';

const log = moduleLogger('handoff/git-guard');

/** Where a repository's known-good record lives and who hears about violations. */
export interface GitGuard {
  /** The record file (in the data dir, never in the workspace). */
  recordFile: string;
  /** Called for every violation found (the session records it as an event). */
  onViolation?: (violation: IntegrityViolation) => void;
}

/** Records already parsed, by file, with the stat they were read at (a check runs before every git command). */
const parsedRecords = new Map<string, { mtimeMs: number; size: number; record: GitDirRecord }>();

/** Loads the record; null when there is none yet (or it is unreadable, which is logged and treated alike). */
async function loadRecord(file: string): Promise<GitDirRecord | null> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (!info) return null;
  const cached = parsedRecords.get(file);
  if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.record;
  const parsed = GitDirRecord.safeParse(JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) {
    log.warn({ file }, 'the known-good .git record is unreadable; recording the current state again');
    return null;
  }
  parsedRecords.set(file, { mtimeMs: info.mtimeMs, size: info.size, record: parsed.data });
  return parsed.data;
}

async function saveRecord(file: string, record: GitDirRecord): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  // Two saves of one process may overlap (the guard's, under the repository's mutex, and the override's record).
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  await rename(temp, file);
  const info = await stat(file);
  parsedRecords.set(file, { mtimeMs: info.mtimeMs, size: info.size, record });
}

/** Records the repository's guarded paths as known-good (after the harness created, cloned or adopted it). */
export async function recordGitDir(workspace: string, recordFile: string): Promise<GitDirRecord> {
  const top = await lstatOrNull(path.join(workspace, '.git'));
  if (top?.isFile()) {
    const text = (await readWorkspaceFile(workspace, '.git', { maxBytes: 4096 }))?.toString('utf8') ?? '';
    const record: GitDirRecord = {
      version: 1,
      workspace,
      recordedAt: new Date().toISOString(),
      gitFile: text,
      entries: {},
    };
    await saveRecord(recordFile, record);
    return record;
  }
  const previous = await loadRecord(recordFile);
  const found = await scanGitDir(workspace, previous ?? undefined);
  const entries: Record<string, GitDirEntry> = {};
  for (const [relative, entry] of found) if (entry.type !== 'other') entries[relative] = entry;
  const record: GitDirRecord = {
    version: 1,
    workspace,
    recordedAt: new Date().toISOString(),
    entries,
  };
  await saveRecord(recordFile, record);
  return record;
}

/**
 * Records one file the harness itself just wrote under a guarded directory (and that directory, when the record
 * has none), leaving every other entry as it was: nothing else that changed since is taken as known-good.
 */
export async function updateGitDirRecord(
  workspace: string,
  recordFile: string,
  relative: string,
): Promise<void> {
  const record = await loadRecord(recordFile);
  if (!record || record.gitFile !== undefined) return;
  const parts = relative.split('/');
  const wanted = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
  const found = await scanGitDir(workspace, record, [wanted[0] as string]);
  const entries = { ...record.entries };
  for (const key of wanted) {
    const entry = found.get(key);
    if (entry?.type === 'file' || (entry?.type === 'dir' && !entries[key])) entries[key] = entry;
  }
  await saveRecord(recordFile, { ...record, recordedAt: new Date().toISOString(), entries });
}

/**
 * Compares the guarded paths with the record and puts back what differs: extra files and directories are
 * removed (links themselves, never their targets), missing or changed ones rewritten from the record. With no
 * record yet, the current state is recorded (what is not a plain file or directory is removed first). Returns
 * the violation, or null when all was as recorded; `.git` missing or not a directory is left to the history check.
 */
export async function enforceGitDir(workspace: string, guard: GitGuard): Promise<IntegrityViolation | null> {
  const gitDir = path.join(workspace, '.git');
  const top = await lstatOrNull(gitDir);
  if (!top) return null;
  const record = await loadRecord(guard.recordFile);
  if (record?.gitFile !== undefined || (!record && top.isFile()))
    return enforceGitFile(workspace, top, record, guard);
  if (!top.isDirectory()) return replaceGitDir(workspace, top, guard);
  const found = await scanGitDir(workspace, record ?? undefined);
  const expected = record?.entries ?? {};
  const changes: string[] = [];
  const removed = new Set<string>();
  let override: GitDirEntry | undefined;
  const keys = [...new Set([...found.keys(), ...(record ? Object.keys(expected) : [])])].sort();
  for (const relative of keys) {
    if ([...removed].some((parent) => relative.startsWith(`${parent}/`))) continue;
    const now = found.get(relative);
    const want = expected[relative];
    if (!record && now?.type !== 'other') continue;
    if (sameEntry(now, want)) continue;
    if (isHarnessOverride(relative, now, want)) {
      override = now;
      continue;
    }
    changes.push(describeChange(relative, now, want));
    if (now) {
      await removeWorkspacePath(workspace, `.git/${relative}`);
      removed.add(relative);
    }
  }
  if (changes.length === 0) {
    if (!record) await recordGitDir(workspace, guard.recordFile);
    // What was checked is what is recorded: a second scan could record a file swapped in since.
    else if (override) {
      const entries = { ...record.entries, 'info/attributes': override };
      await saveRecord(guard.recordFile, { ...record, recordedAt: new Date().toISOString(), entries });
    }
    return null;
  }
  if (record) await restoreEntries(workspace, expected, found, removed);
  await recordGitDir(workspace, guard.recordFile);
  const violation: IntegrityViolation = {
    kind: 'git_config_tampered',
    detail: `${changes.slice(0, 12).join('; ')}${changes.length > 12 ? `; and ${changes.length - 12} more` : ''}; restored to the known-good state`,
  };
  log.warn({ workspace, changes }, 'the repository configuration was tampered with; restored');
  guard.onViolation?.(violation);
  return violation;
}

/**
 * Whether `now` is `.git/info/attributes` as the harness's own override leaves it: the recorded text (or none)
 * with the override appended (handoff/git-attributes.ts). The harness writes it before a command and records it
 * right after, outside the repository's mutex, so a guard of another session or worker can see it in between; it
 * only unsets attributes, and any other text is still a change.
 */
function isHarnessOverride(
  relative: string,
  now: ScannedEntry | undefined,
  want: GitDirEntry | undefined,
): now is Extract<GitDirEntry, { type: 'file' }> {
  if (relative !== 'info/attributes' || now?.type !== 'file' || (want && want.type !== 'file')) return false;
  const recorded = want?.type === 'file' ? Buffer.from(want.content, 'base64').toString('utf8') : '';
  return Buffer.from(now.content, 'base64').toString('utf8') === withOverride(recorded);
}

async function restoreEntries(
  workspace: string,
  expected: Record<string, GitDirEntry>,
  found: Map<string, ScannedEntry>,
  removed: Set<string>,
): Promise<void> {
  const wanted = Object.entries(expected).sort(([a], [b]) => a.length - b.length);
  for (const [relative, entry] of wanted) {
    const present = !removed.has(relative) && ![...removed].some((p) => relative.startsWith(`${p}/`));
    if (present && sameEntry(found.get(relative), entry)) continue;
    if (entry.type === 'dir') await makeWorkspaceDir(workspace, `.git/${relative}`, entry.mode);
    else if (entry.type === 'link') await makeWorkspaceLink(workspace, `.git/${relative}`, entry.target);
    else
      await writeWorkspaceFile(workspace, `.git/${relative}`, Buffer.from(entry.content, 'base64'), {
        mode: entry.mode,
      });
  }
}

/** A linked worktree's `.git` file must keep the text it had when recorded. */
async function enforceGitFile(
  workspace: string,
  top: Stats,
  record: GitDirRecord | null,
  guard: GitGuard,
): Promise<IntegrityViolation | null> {
  if (!record) {
    await recordGitDir(workspace, guard.recordFile);
    return null;
  }
  const now = top.isFile()
    ? await readWorkspaceFile(workspace, '.git', { maxBytes: 4096 }).catch(() => null)
    : null;
  if (now?.toString('utf8') === record.gitFile) return null;
  // A directory is a whole repository: never deleted here (the history check decides what it holds).
  if (!top.isDirectory()) {
    await removeWorkspacePath(workspace, '.git');
    await writeWorkspaceFile(workspace, '.git', record.gitFile ?? '');
  }
  const violation: IntegrityViolation = {
    kind: 'git_config_tampered',
    detail: '.git (a gitdir file) was changed; restored to the known-good text',
  };
  guard.onViolation?.(violation);
  return violation;
}

/** `.git` is a link or a file (a `gitdir:` redirect): it is removed, and the history check rebuilds the repository. */
async function replaceGitDir(workspace: string, top: Stats, guard: GitGuard): Promise<IntegrityViolation> {
  const what = top.isSymbolicLink()
    ? 'a symbolic link'
    : top.isFile()
      ? 'a file (a gitdir redirect)'
      : 'not a directory';
  await removeWorkspacePath(workspace, '.git');
  const violation: IntegrityViolation = {
    kind: 'git_config_tampered',
    detail: `.git was ${what}; it was removed and the repository is rebuilt from the backup mirror`,
  };
  log.error({ workspace }, violation.detail);
  guard.onViolation?.(violation);
  return violation;
}
