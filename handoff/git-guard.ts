/**
 * The known-good `.git`: the parts of a repository that can make git run a program or read outside the
 * workspace — `config` (drivers, includes, url rewrites, `core.worktree`…), `info/` (attributes, grafts,
 * sparse-checkout), `hooks/`, `commondir`, `objects/info/alternates`, `shallow` — are recorded in the data dir
 * when the harness creates, clones or adopts the repository (or, for a workspace from before, the first time
 * a session uses it), and compared before every harness git command. Anything different is put back as
 * recorded and reported as a `git_config_tampered` violation; the run goes on.
 */
import type { Stats } from 'node:fs';
import { mkdir, readdir, readFile, readlink, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { moduleLogger } from '../core/log.js';
import type { IntegrityViolation } from './formats.js';
import {
  lstatOrNull,
  makeWorkspaceDir,
  makeWorkspaceLink,
  readWorkspaceFile,
  removeWorkspacePath,
  UnsafeFileError,
  writeWorkspaceFile,
} from './safe-fs.js';

const log = moduleLogger('handoff/git-guard');

/** Paths under `.git` that are compared (a directory covers what is inside it). */
export const GUARDED_GIT_PATHS = [
  'config',
  'config.worktree',
  'commondir',
  'shallow',
  'info',
  'hooks',
  'objects/info/alternates',
  'objects/info/http-alternates',
];

/** A file above this is not kept in the record (a real config is a few hundred bytes). */
const MAX_RECORDED_FILE = 1024 * 1024;
/** Entries per guarded directory at most; more is itself a sign of tampering and is cleared. */
const MAX_DIR_ENTRIES = 500;

/** One recorded path under `.git`. */
export const GitDirEntry = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('file'),
    mode: z.number().int(),
    /** Base64 content. */
    content: z.string(),
    /** Cheap identity: when size, inode and ctime match, the content is not read again. */
    size: z.number().int(),
    ino: z.number(),
    ctimeMs: z.number(),
  }),
  z.object({ type: z.literal('dir'), mode: z.number().int() }),
  /** A link found when the record was taken (e.g. the operator's hook linked to a script); never followed. */
  z.object({ type: z.literal('link'), target: z.string() }),
]);
export type GitDirEntry = z.infer<typeof GitDirEntry>;

/** The record of a known-good `.git`, one JSON file in the data dir per workspace. */
export const GitDirRecord = z.object({
  version: z.literal(1),
  workspace: z.string(),
  recordedAt: z.string(),
  /**
   * `.git` itself: a directory, or a `gitdir:` file (a linked worktree; its text is kept and compared, the
   * guarded paths then live in the main repository and are guarded there).
   */
  gitFile: z.string().optional(),
  entries: z.record(z.string(), GitDirEntry),
});
export type GitDirRecord = z.infer<typeof GitDirRecord>;

/** Where a repository's known-good record lives and who hears about violations. */
export interface GitGuard {
  /** The record file (in the data dir, never in the workspace). */
  recordFile: string;
  /** Called for every violation found (the session records it as an event). */
  onViolation?: (violation: IntegrityViolation) => void;
}

/** What the scan of `.git` found at a path: a recordable entry, or something that never is. */
type Found = GitDirEntry | { type: 'other'; what: string };

function describeKind(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isFile()) return 'a file with several hard links';
  return 'a special file';
}

/** Scans the guarded paths (no link followed, nothing opened that is not a regular file). */
async function scan(
  workspace: string,
  known?: GitDirRecord,
  roots: readonly string[] = GUARDED_GIT_PATHS,
): Promise<Map<string, Found>> {
  const found = new Map<string, Found>();
  const gitDir = path.join(workspace, '.git');
  const visit = async (relative: string, depth: number): Promise<void> => {
    const info = await lstatOrNull(path.join(gitDir, relative));
    if (!info) return;
    if (info.isDirectory()) {
      found.set(relative, { type: 'dir', mode: info.mode & 0o777 });
      if (depth >= 4) return;
      const names = (await readdir(path.join(gitDir, relative))).sort();
      if (names.length > MAX_DIR_ENTRIES) {
        found.set(relative, { type: 'other', what: `a directory of ${names.length} entries` });
        return;
      }
      for (const name of names) await visit(path.posix.join(relative, name), depth + 1);
      return;
    }
    if (info.isSymbolicLink()) {
      found.set(relative, { type: 'link', target: await readlink(path.join(gitDir, relative)) });
      return;
    }
    if (!info.isFile() || info.nlink > 1) {
      found.set(relative, { type: 'other', what: describeKind(info) });
      return;
    }
    const previous = known?.entries[relative];
    if (
      previous?.type === 'file' &&
      previous.size === info.size &&
      previous.ino === info.ino &&
      previous.ctimeMs === info.ctimeMs &&
      previous.mode === (info.mode & 0o777)
    ) {
      found.set(relative, previous);
      return;
    }
    found.set(relative, await readEntry(workspace, relative, info));
  };
  for (const relative of roots) await visit(relative, 0);
  return found;
}

async function readEntry(workspace: string, relative: string, info: Stats): Promise<Found> {
  try {
    const bytes = await readWorkspaceFile(workspace, `.git/${relative}`, { maxBytes: MAX_RECORDED_FILE });
    if (bytes === null) return { type: 'other', what: 'a file that vanished while read' };
    return {
      type: 'file',
      mode: info.mode & 0o777,
      content: bytes.toString('base64'),
      size: info.size,
      ino: info.ino,
      ctimeMs: info.ctimeMs,
    };
  } catch (error) {
    if (error instanceof UnsafeFileError) return { type: 'other', what: error.message };
    throw error;
  }
}

function sameEntry(a: Found | undefined, b: GitDirEntry | undefined): boolean {
  if (!a || !b) return false;
  if (a.type === 'dir' && b.type === 'dir') return a.mode === b.mode;
  if (a.type === 'link' && b.type === 'link') return a.target === b.target;
  if (a.type === 'file' && b.type === 'file') return a.mode === b.mode && a.content === b.content;
  return false;
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
  const temp = `${file}.${process.pid}.tmp`;
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
  const found = await scan(workspace, previous ?? undefined);
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
  const found = await scan(workspace, record, [wanted[0] as string]);
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
  const found = await scan(workspace, record ?? undefined);
  const expected = record?.entries ?? {};
  const changes: string[] = [];
  const removed = new Set<string>();
  const keys = [...new Set([...found.keys(), ...(record ? Object.keys(expected) : [])])].sort();
  for (const relative of keys) {
    if ([...removed].some((parent) => relative.startsWith(`${parent}/`))) continue;
    const now = found.get(relative);
    const want = expected[relative];
    if (!record && now?.type !== 'other') continue;
    if (sameEntry(now, want)) continue;
    changes.push(describeChange(relative, now, want));
    if (now) {
      await removeWorkspacePath(workspace, `.git/${relative}`);
      removed.add(relative);
    }
  }
  if (changes.length === 0) {
    if (!record) await recordGitDir(workspace, guard.recordFile);
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

async function restoreEntries(
  workspace: string,
  expected: Record<string, GitDirEntry>,
  found: Map<string, Found>,
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

function describeChange(relative: string, now: Found | undefined, want: GitDirEntry | undefined): string {
  const name = `.git/${relative}`;
  if (!now) return `${name} removed`;
  if (now.type === 'other') return `${name} is ${now.what}`;
  if (!want) {
    const what =
      now.type === 'file' ? ` (${now.size} bytes)` : now.type === 'link' ? ' (a symbolic link)' : '';
    return `${name} added${what}`;
  }
  if (now.type === 'file' && want.type === 'file') {
    if (now.content === want.content) return `${name} mode changed`;
    return relative === 'config' || relative === 'config.worktree'
      ? `${name} changed (${configDiff(want.content, now.content)})`
      : `${name} changed`;
  }
  return `${name} changed from a ${want.type} to a ${now.type}`;
}

/** The lines added and removed, bounded, with credentials in URLs masked. */
function configDiff(beforeBase64: string, afterBase64: string): string {
  const lines = (base64: string) =>
    new Set(
      Buffer.from(base64, 'base64')
        .toString('utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    );
  const before = lines(beforeBase64);
  const after = lines(afterBase64);
  const show = (line: string) => {
    const masked = line.replace(/:\/\/[^/@\s]+@/g, '://***@');
    return masked.length > 100 ? `${masked.slice(0, 99)}…` : masked;
  };
  const added = [...after]
    .filter((line) => !before.has(line))
    .slice(0, 8)
    .map((l) => `+ ${show(l)}`);
  const gone = [...before]
    .filter((line) => !after.has(line))
    .slice(0, 8)
    .map((l) => `- ${show(l)}`);
  return [...added, ...gone].join(', ') || 'whitespace only';
}
