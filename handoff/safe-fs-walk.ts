/**
 * The walk under every harness read and write of a workspace file (handoff/safe-fs.ts): the path split into
 * components (no absolute path, no `..`), each directory on the way checked with `lstat` (a link anywhere is
 * refused), the opened descriptor checked with `fstat` (a regular file with one link) and, on Linux, against the
 * path walked. Kept apart so safe-fs.ts holds the operations and stays readable.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { NightshiftError } from '../core/errors.js';

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

/** Flags of every read: no link followed, a FIFO never blocks, never a controlling terminal. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Splits a workspace-relative path into components; refuses absolute paths and `..`. */
export function components(relative: string): string[] {
  const parts = relative.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
  if (path.isAbsolute(relative) || parts.length === 0 || parts.includes('..')) {
    throw new UnsafeFileError(relative, 'path_outside', 'not a path inside the workspace');
  }
  return parts;
}

/** What a non-regular file is, in words. */
export function kindOf(info: Stats): string {
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
export function walkParents(
  root: string,
  parts: string[],
  relative: string,
  create: boolean,
): Promise<boolean> {
  return walkDirectories(root, parts.slice(0, -1), relative, create);
}

/**
 * Walks `dirs` below the root, each a real directory (never a link); false when one is missing, unless `create`
 * makes it (with `mode`, default 0o777 less the umask).
 */
export async function walkDirectories(
  root: string,
  dirs: string[],
  relative: string,
  create: boolean,
  mode?: number,
): Promise<boolean> {
  let current = root;
  for (const part of dirs) {
    current = path.join(current, part);
    let info = await lstatOrNull(current);
    if (info === null) {
      if (!create) return false;
      await mkdir(current, mode).catch((error: NodeJS.ErrnoException) => {
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
export function checkOpened(relative: string, info: Stats): void {
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
export async function checkDescriptorPath(
  handle: FileHandle,
  expected: string,
  relative: string,
): Promise<void> {
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
export async function openChecked(
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
export function rootOf(workspace: string): Promise<string> {
  return realpath(workspace);
}
