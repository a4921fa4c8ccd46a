/**
 * Confinement of the file tools: every path is resolved to its real path (symlinks followed, also for
 * files that do not exist yet) and compared with the workspace's real path and the protected paths.
 * The operation then uses the resolved real path, never the string the model gave, so what was
 * checked is what gets touched.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../../core/paths.js';
import { type ToolContext, ToolError } from '../tool.js';

/** A path the file tools may use. */
export interface ResolvedPath {
  /** Absolute real path (symlinks resolved) inside the workspace. */
  real: string;
  /** `real` relative to the workspace root (`.` for the root itself), for messages. */
  relative: string;
  /** Whether something exists at `real`. */
  exists: boolean;
}

/** Options of `resolveInWorkspace`. */
export interface ResolveOptions {
  /** Refuse protected paths (writes and edits); reads may look at them. */
  forWrite: boolean;
}

/** Real path of the workspace root, or a ToolError when it is gone. */
function workspaceRoot(workspace: string): string {
  try {
    return fs.realpathSync.native(workspace);
  } catch (error) {
    throw new ToolError(`the workspace ${workspace} is not accessible (${(error as Error).message})`);
  }
}

/**
 * Resolves an absolute path component by component, following symlinks the way the kernel would
 * (`link/..` is the parent of the link's target, not of the link). Components after the deepest
 * existing one are appended lexically.
 */
export function realPathOf(absolute: string): { real: string; exists: boolean } {
  const parts = absolute.split(path.sep).filter((part) => part.length > 0);
  let current = path.parse(absolute).root || path.sep;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (part === '.') continue;
    if (part === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, part);
    try {
      current = fs.realpathSync.native(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        return { real: path.resolve(current, ...parts.slice(i)), exists: false };
      }
      throw new ToolError(`cannot resolve ${absolute}: ${(error as Error).message}`);
    }
  }
  return { real: current, exists: true };
}

/** Case- and normalization-insensitive comparison key: refusing a little more is safer than less. */
function comparable(p: string): string {
  return p.normalize('NFC').toLowerCase();
}

/** The protected entry `target` falls under, if any (compared on real paths). */
function protectedEntryFor(
  root: string,
  target: string,
  protectedPaths: readonly string[],
): string | undefined {
  const key = comparable(target);
  for (const entry of protectedPaths) {
    const { real } = realPathOf(path.resolve(root, entry));
    const protectedKey = comparable(real);
    if (key === protectedKey || key.startsWith(protectedKey + path.sep)) return entry;
  }
  return undefined;
}

/**
 * Resolves `input` (relative to the workspace, or absolute inside it) to a real path inside the
 * workspace. Throws a ToolError when it resolves outside, or, with `forWrite`, when it is protected.
 */
export function resolveInWorkspace(ctx: ToolContext, input: string, options: ResolveOptions): ResolvedPath {
  if (typeof input !== 'string' || input.trim() === '')
    throw new ToolError('path is empty: give a file path');
  if (input.includes('\0')) throw new ToolError('path contains a NUL byte');
  const root = workspaceRoot(ctx.workspace);
  // Not path.join: it would fold `link/..` lexically, while the kernel follows the link first.
  const absolute = path.isAbsolute(input) ? input : `${root}${path.sep}${input}`;
  const { real, exists } = realPathOf(absolute);
  if (!isInside(root, real)) {
    throw new ToolError(
      `path ${input} resolves outside the workspace (${real} is not under ${root}); ` +
        'only files inside the workspace can be used',
    );
  }
  const relative = path.relative(root, real) || '.';
  for (const { path: hidden, reason } of ctx.unreadablePaths ?? []) {
    if (protectedEntryFor(root, real, [hidden]) !== undefined) {
      throw new ToolError(`${relative} may not be read in this session: ${reason}`);
    }
  }
  if (options.forWrite) {
    const entry = protectedEntryFor(root, real, ctx.protectedPaths);
    if (entry !== undefined) {
      throw new ToolError(`${relative} is protected: only the harness may change it (protected: ${entry})`);
    }
  }
  return { real, relative, exists };
}
