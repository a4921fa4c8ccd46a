/**
 * The one way the harness reads and writes files inside a workspace, a clone or the backup mirror. The workspace
 * is written by a model (from a sandbox, or without one), so nothing in it is trusted: a path is walked component
 * by component with `lstat` and a symbolic link anywhere below the root is refused (handoff/safe-fs-walk.ts); a
 * file is opened with `O_NOFOLLOW | O_NONBLOCK` (a FIFO never blocks the harness) and checked with `fstat`: a
 * regular file with one link, no larger than the cap. Writes go through a new file (`O_EXCL | O_NOFOLLOW`) renamed
 * over the target, so a link planted where the harness writes is replaced, never followed — or, where a planted
 * link means the workspace is not what the harness expects, refused (`links: 'refuse'`). Directories are made,
 * links made and trees removed only below real directories. Errors name the path and the problem, never the
 * content of anything. A test (test/unit/handoff/harness-writes.test.ts) fails when a module writes with raw `fs`
 * outside its allowlist.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, readlink, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import {
  checkDescriptorPath,
  checkOpened,
  components,
  kindOf,
  lstatOrNull,
  openChecked,
  rootOf,
  UnsafeFileError,
  walkDirectories,
  walkParents,
} from './safe-fs-walk.js';

export { lstatOrNull, UnsafeFileError, type UnsafeFileProblem } from './safe-fs-walk.js';

/** Default size cap of a whole-file read (8 MiB): far above any handoff file, far below what would hurt. */
export const DEFAULT_READ_LIMIT = 8 * 1024 * 1024;

/** Options of the reads. */
export interface SafeReadOptions {
  /** Largest file read whole, in bytes (default {@link DEFAULT_READ_LIMIT}). */
  maxBytes?: number;
}

/**
 * Reads a whole workspace file; null when it does not exist. Throws {@link UnsafeFileError} for a link, a
 * non-regular file, a hard link or a file above `maxBytes`.
 */
export async function readWorkspaceFile(
  workspace: string,
  relative: string,
  options: SafeReadOptions = {},
): Promise<Buffer | null> {
  const maxBytes = options.maxBytes ?? DEFAULT_READ_LIMIT;
  const opened = await openChecked(await rootOf(workspace), relative);
  if (!opened) return null;
  const { handle, info } = opened;
  try {
    if (info.size > maxBytes) throw tooLarge(relative, info.size, maxBytes);
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > maxBytes) throw tooLarge(relative, filled, maxBytes);
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

function tooLarge(relative: string, size: number, maxBytes: number): UnsafeFileError {
  return new UnsafeFileError(
    relative,
    'too_large',
    `is ${size} bytes; the harness reads at most ${maxBytes} bytes of it`,
  );
}

/** {@link readWorkspaceFile} as UTF-8 text. */
export async function readWorkspaceText(
  workspace: string,
  relative: string,
  options: SafeReadOptions = {},
): Promise<string | null> {
  const bytes = await readWorkspaceFile(workspace, relative, options);
  return bytes === null ? null : bytes.toString('utf8');
}

/** The last bytes of a workspace file, however large it is (a 1 GB sparse file costs one small read). */
export interface FileTail {
  /** The last `maxBytes` (or all) of the file. */
  bytes: Buffer;
  /** The file's size. */
  size: number;
}

/** Reads at most the last `maxBytes` of a workspace file; null when it does not exist. Same checks as reads. */
export async function readWorkspaceTail(
  workspace: string,
  relative: string,
  maxBytes: number,
): Promise<FileTail | null> {
  const opened = await openChecked(await rootOf(workspace), relative);
  if (!opened) return null;
  const { handle, info } = opened;
  try {
    const length = Math.min(info.size, maxBytes);
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, info.size - length);
    return { bytes: bytes.subarray(0, bytesRead), size: info.size };
  } finally {
    await handle.close();
  }
}

/** What {@link statWorkspaceFile} tells about a file. */
export interface WorkspaceFileInfo {
  size: number;
  mode: number;
}

/** Size and mode of a workspace file after the same checks as a read; null when it does not exist. */
export async function statWorkspaceFile(
  workspace: string,
  relative: string,
): Promise<WorkspaceFileInfo | null> {
  const opened = await openChecked(await rootOf(workspace), relative);
  if (!opened) return null;
  await opened.handle.close();
  return { size: opened.info.size, mode: opened.info.mode };
}

/**
 * Removes a workspace file the harness wrote; false when it is not there. No directory on the way may be a link
 * (a linked `.nightshift/` would otherwise aim the removal outside); a link at the name itself is removed, never
 * followed.
 */
export async function removeWorkspaceFile(workspace: string, relative: string): Promise<boolean> {
  const root = await rootOf(workspace);
  const parts = components(relative);
  if (!(await walkParents(root, parts, relative, false))) return false;
  const target = path.join(root, ...parts);
  const info = await lstatOrNull(target);
  if (info === null) return false;
  if (info.isDirectory())
    throw new UnsafeFileError(relative, 'not_regular', 'is a directory; a file was expected');
  await rm(target, { force: true });
  return true;
}

/** Adds mode bits to an existing workspace file (through its descriptor: a link is never followed). */
export async function chmodWorkspaceFile(workspace: string, relative: string, mode: number): Promise<void> {
  const opened = await openChecked(await rootOf(workspace), relative);
  if (!opened) throw new UnsafeFileError(relative, 'not_regular', 'does not exist');
  try {
    await opened.handle.chmod(mode);
  } finally {
    await opened.handle.close();
  }
}

/** Options of {@link writeWorkspaceFile}. */
export interface SafeWriteOptions {
  /** Mode of the written file (default 0o644, or the existing file's mode when it is a regular file). */
  mode?: number;
  /**
   * What a link (or a hard-linked file) at the target means: `replace` (default) puts the new file in its place, the
   * link's target untouched; `refuse` throws {@link UnsafeFileError} and writes nothing, for a file the operator
   * should know was planted (a command that writes into a workspace on request, e.g. `checks export`).
   */
  links?: 'replace' | 'refuse';
}

/**
 * Refuses, before anything is written, a target that {@link writeWorkspaceFile} with `links: 'refuse'` would
 * refuse: a link (dangling or not, its target named), a hard-linked file, a directory or a non-regular file, or a
 * link on the way to it. A missing target (or missing parents) is fine.
 */
export async function assertWritableTarget(workspace: string, relative: string): Promise<void> {
  const root = await rootOf(workspace);
  const parts = components(relative);
  if (!(await walkParents(root, parts, relative, false))) return;
  const existing = await lstatOrNull(path.join(root, ...parts));
  if (existing === null || (existing.isFile() && existing.nlink === 1)) return;
  if (existing.isSymbolicLink()) {
    const target = await readlink(path.join(root, ...parts)).catch(() => '?');
    throw new UnsafeFileError(
      relative,
      'symlink',
      `is a symbolic link (to ${JSON.stringify(target.slice(0, 200))}); the harness does not write through links or replace them here`,
    );
  }
  if (existing.isFile()) {
    throw new UnsafeFileError(
      relative,
      'hard_link',
      `has ${existing.nlink} hard links; writing it would change the file linked from elsewhere`,
    );
  }
  throw new UnsafeFileError(relative, 'not_regular', `is ${kindOf(existing)}; a regular file was expected`);
}

/**
 * Writes a workspace file: missing parent directories are created (each checked: no link), the content goes
 * to a new temporary file beside the target (`O_EXCL | O_NOFOLLOW`), which is renamed over the target. A link
 * or FIFO at the target is replaced, never followed (or, with `links: 'refuse'`, refused).
 */
export async function writeWorkspaceFile(
  workspace: string,
  relative: string,
  data: string | Uint8Array,
  options: SafeWriteOptions = {},
): Promise<void> {
  if (options.links === 'refuse') await assertWritableTarget(workspace, relative);
  const root = await rootOf(workspace);
  const parts = components(relative);
  await walkParents(root, parts, relative, true);
  const target = path.join(root, ...parts);
  const existing = await lstatOrNull(target);
  if (existing?.isDirectory()) {
    throw new UnsafeFileError(relative, 'not_regular', 'is a directory; a file was expected');
  }
  const mode = options.mode ?? (existing?.isFile() ? existing.mode & 0o7777 : 0o644);
  const temp = `${target}.${process.pid}.${Date.now().toString(36)}.tmp`;
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await open(temp, flags, mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  // rename() replaces the name itself: whatever was planted there (a link, a hard link) is never written through.
  await rename(temp, target);
}

/** Makes a directory (and its missing parents) below the root; every component must be a real directory. */
export async function makeWorkspaceDir(workspace: string, relative: string, mode = 0o755): Promise<void> {
  const root = await rootOf(workspace);
  const parts = components(relative);
  await walkDirectories(root, parts, relative, true, mode);
}

/**
 * Removes a file, link or whole directory below the root; false when nothing is there. No directory on the way
 * may be a link; inside the tree, links are removed, never followed (`rm` works on the names it walks).
 */
export async function removeWorkspacePath(workspace: string, relative: string): Promise<boolean> {
  const root = await rootOf(workspace);
  const parts = components(relative);
  if (!(await walkParents(root, parts, relative, false))) return false;
  const target = path.join(root, ...parts);
  if ((await lstatOrNull(target)) === null) return false;
  await rm(target, { recursive: true, force: true });
  return true;
}

/** Makes a symbolic link below the root (the harness restoring one it recorded); fails when the name exists. */
export async function makeWorkspaceLink(
  workspace: string,
  relative: string,
  linkTarget: string,
): Promise<void> {
  const root = await rootOf(workspace);
  const parts = components(relative);
  await walkParents(root, parts, relative, true);
  await symlink(linkTarget, path.join(root, ...parts));
}

/**
 * Appends to a workspace file, creating it when missing. The existing file must pass the read checks (a link,
 * FIFO or hard link is refused); the append goes through the descriptor that was checked.
 */
export async function appendWorkspaceFile(
  workspace: string,
  relative: string,
  data: string | Uint8Array,
): Promise<void> {
  const root = await rootOf(workspace);
  const parts = components(relative);
  await walkParents(root, parts, relative, true);
  const file = path.join(root, ...parts);
  const flags =
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let handle: FileHandle;
  try {
    handle = await open(file, flags, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') {
      throw new UnsafeFileError(relative, 'symlink', 'is a symbolic link; links are not followed');
    }
    // A FIFO without a reader refuses a non-blocking open for writing: say what it is.
    if (code === 'ENXIO')
      throw new UnsafeFileError(relative, 'not_regular', 'is a FIFO; only regular files are written');
    throw error;
  }
  try {
    checkOpened(relative, await handle.stat());
    await checkDescriptorPath(handle, file, relative);
    await handle.appendFile(data);
  } finally {
    await handle.close();
  }
}
