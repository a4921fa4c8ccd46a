/**
 * The one way the harness reads and writes files inside a workspace. The workspace is written by a model
 * (from a sandbox, or without one), so nothing in it is trusted: a path is walked component by component
 * with `lstat` and a symbolic link anywhere below the workspace root is refused; the file is opened with
 * `O_NOFOLLOW | O_NONBLOCK` (a FIFO never blocks the harness) and checked with `fstat`: a regular file with
 * one link, no larger than the cap. Writes go through a temporary file renamed over the target, so a link
 * planted where the harness writes is replaced, never followed. Errors name the path and the problem, never
 * the content of anything.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { NightshiftError } from '../core/errors.js';

/** Default size cap of a whole-file read (8 MiB): far above any handoff file, far below what would hurt. */
export const DEFAULT_READ_LIMIT = 8 * 1024 * 1024;

/** Why a workspace file was refused. */
export type UnsafeFileProblem =
  | 'path_outside'
  | 'symlink'
  | 'not_a_directory'
  | 'not_regular'
  | 'hard_link'
  | 'too_large'
  | 'changed_while_opening';

/** A workspace file the harness will not read or write as it is; names the path and the problem only. */
export class UnsafeFileError extends NightshiftError {
  /** The workspace-relative path asked for. */
  readonly file: string;
  readonly problem: UnsafeFileProblem;

  constructor(file: string, problem: UnsafeFileProblem, detail: string) {
    super('WORKSPACE_FILE_REFUSED', `${file}: ${detail}`, {
      hint: 'the harness reads and writes workspace files only as regular files inside the workspace (no symbolic or hard links, no FIFOs, sockets or devices); replace it with a regular file',
    });
    this.file = file;
    this.problem = problem;
  }
}

/** Options of the reads. */
export interface SafeReadOptions {
  /** Largest file read whole, in bytes (default {@link DEFAULT_READ_LIMIT}). */
  maxBytes?: number;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Splits a workspace-relative path into components; refuses absolute paths and `..`. */
function components(relative: string): string[] {
  const parts = relative.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
  if (path.isAbsolute(relative) || parts.length === 0 || parts.includes('..')) {
    throw new UnsafeFileError(relative, 'path_outside', 'not a path inside the workspace');
  }
  return parts;
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** `lstat` (no link followed), or null when nothing is there (or a parent is not a directory). */
export async function lstatOrNull(file: string): Promise<Stats | null> {
  try {
    return await lstat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * Checks every directory between the root and the file: each must be a real directory, never a link.
 * Returns false when one is missing (then so is the file); with `create`, missing ones are made.
 */
async function walkParents(
  root: string,
  parts: string[],
  relative: string,
  create: boolean,
): Promise<boolean> {
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = path.join(current, part);
    let info = await lstatOrNull(current);
    if (info === null) {
      if (!create) return false;
      await mkdir(current).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      info = await lstat(current);
    }
    const shown = path.relative(root, current);
    if (info.isSymbolicLink()) {
      throw new UnsafeFileError(relative, 'symlink', `${shown} is a symbolic link; links are not followed`);
    }
    if (!info.isDirectory()) {
      throw new UnsafeFileError(relative, 'not_a_directory', `${shown} is ${kindOf(info)}, not a directory`);
    }
  }
  return true;
}

/** Refuses what an open descriptor must not be: anything but a regular file with a single link. */
function checkOpened(relative: string, info: Stats): void {
  if (!info.isFile()) {
    throw new UnsafeFileError(relative, 'not_regular', `is ${kindOf(info)}; only regular files are read`);
  }
  if (info.nlink > 1) {
    throw new UnsafeFileError(
      relative,
      'hard_link',
      `has ${info.nlink} hard links; a file linked from elsewhere is not read`,
    );
  }
}

/** On Linux, the descriptor must still name the path walked (a directory swapped for a link meanwhile shows here). */
async function checkDescriptorPath(handle: FileHandle, expected: string, relative: string): Promise<void> {
  let actual: string;
  try {
    actual = await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return; // No /proc (macOS): the lstat walk stands alone.
  }
  if (actual !== expected) {
    throw new UnsafeFileError(
      relative,
      'changed_while_opening',
      'its path changed while it was being opened',
    );
  }
}

/** Opens an existing file for reading after the checks; null when it (or a parent) does not exist. */
async function openChecked(
  root: string,
  relative: string,
): Promise<{ handle: FileHandle; info: Stats } | null> {
  const parts = components(relative);
  if (!(await walkParents(root, parts, relative, false))) return null;
  const file = path.join(root, ...parts);
  let handle: FileHandle;
  try {
    handle = await open(file, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP' || code === 'EMLINK') {
      throw new UnsafeFileError(relative, 'symlink', 'is a symbolic link; links are not followed');
    }
    throw error;
  }
  try {
    const info = await handle.stat();
    checkOpened(relative, info);
    await checkDescriptorPath(handle, file, relative);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The real path of the workspace root (the root itself may be reached through a link the operator chose). */
function rootOf(workspace: string): Promise<string> {
  return realpath(workspace);
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
}

/**
 * Writes a workspace file: missing parent directories are created (each checked: no link), the content goes
 * to a new temporary file beside the target (`O_EXCL | O_NOFOLLOW`), which is renamed over the target. A link
 * or FIFO at the target is replaced, never followed.
 */
export async function writeWorkspaceFile(
  workspace: string,
  relative: string,
  data: string | Uint8Array,
  options: SafeWriteOptions = {},
): Promise<void> {
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
  await rename(temp, target);
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
