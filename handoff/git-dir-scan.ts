/**
 * The scan of a repository's guarded `.git` paths, the record format it is compared with, and the words for what
 * differs (handoff/git-guard.ts records, compares and restores).
 */
import type { Stats } from 'node:fs';
import { readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { lstatOrNull, readWorkspaceFile, UnsafeFileError } from './safe-fs.js';

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

/** What the scan of `.git` found at a path: a recordable entry, or something that never is. */
export type ScannedEntry = GitDirEntry | { type: 'other'; what: string };

function describeKind(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isFile()) return 'a file with several hard links';
  return 'a special file';
}

/**
 * Scans the guarded paths (no link followed, nothing opened that is not a regular file); a file whose size,
 * inode, ctime and mode match `known` is taken from it without being read again.
 */
export async function scanGitDir(
  workspace: string,
  known?: GitDirRecord,
  roots: readonly string[] = GUARDED_GIT_PATHS,
): Promise<Map<string, ScannedEntry>> {
  const found = new Map<string, ScannedEntry>();
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

async function readEntry(workspace: string, relative: string, info: Stats): Promise<ScannedEntry> {
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

/** True when what was found is what was recorded (files by mode and content). */
export function sameEntry(a: ScannedEntry | undefined, b: GitDirEntry | undefined): boolean {
  if (!a || !b) return false;
  if (a.type === 'dir' && b.type === 'dir') return a.mode === b.mode;
  if (a.type === 'link' && b.type === 'link') return a.target === b.target;
  if (a.type === 'file' && b.type === 'file') return a.mode === b.mode && a.content === b.content;
  return false;
}

/** One change of a guarded path for the violation's text (config files with their changed lines). */
export function describeChange(
  relative: string,
  now: ScannedEntry | undefined,
  want: GitDirEntry | undefined,
): string {
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
