import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isInside } from '../../core/paths.js';
import { formatCount } from '../../core/truncate.js';
import { defineTool, type ToolContext, ToolError } from '../tool.js';
import { type ResolvedPath, realPathOf, resolveInWorkspace } from './paths.js';

/** Arguments of `write`. */
export const WriteArgs = z.object({
  path: z.string().describe('File path, relative to the workspace root (or absolute inside it).'),
  content: z.string().describe('The complete new content of the file.'),
});
/** Arguments of `write`. */
export type WriteArgs = z.infer<typeof WriteArgs>;

/**
 * Writes `content` to a path already checked by `resolveInWorkspace`. Parent directories are created;
 * the parent is re-resolved afterwards and the file opened with O_NOFOLLOW, so a symlink swapped in
 * between the check and the write is refused rather than followed.
 */
export function writeResolvedFile(ctx: ToolContext, target: ResolvedPath, content: string): number {
  const parent = path.dirname(target.real);
  fs.mkdirSync(parent, { recursive: true });
  const root = fs.realpathSync.native(ctx.workspace);
  if (!isInside(root, realPathOf(parent).real)) {
    throw new ToolError(`path ${target.relative} resolves outside the workspace`);
  }
  if (target.exists) refuseSharedInode(ctx, target);
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW;
  let fd: number;
  try {
    fd = fs.openSync(target.real, flags, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ToolError(`${target.relative} became a symlink; not following it`);
    if (code === 'EISDIR') throw new ToolError(`${target.relative} is a directory`);
    throw new ToolError(`cannot write ${target.relative}: ${(error as Error).message}`);
  }
  try {
    const data = Buffer.from(content, 'utf8');
    fs.writeFileSync(fd, data);
    return data.length;
  } finally {
    fs.closeSync(fd);
  }
}

/** A hard link could alias a protected file under another name; refuse to write through one. */
function refuseSharedInode(ctx: ToolContext, target: ResolvedPath): void {
  const stat = fs.statSync(target.real);
  if (stat.isDirectory()) throw new ToolError(`${target.relative} is a directory`);
  if (stat.nlink > 1 && ctx.protectedPaths.length > 0) {
    throw new ToolError(
      `${target.relative} has ${stat.nlink} hard links; the file tools do not write through hard links ` +
        '(remove the extra link or write a new file)',
    );
  }
}

/** The `write` tool: creates or replaces a file inside the workspace. */
export const writeTool = defineTool({
  name: 'write',
  description:
    'Create or overwrite a file in the workspace with the given content (parent directories are created). ' +
    'Prefer edit for changing part of an existing file.',
  parameters: WriteArgs,
  async execute(args, ctx) {
    const { path: input, content } = WriteArgs.parse(args);
    const target = resolveInWorkspace(ctx, input, { forWrite: true });
    const previous = target.exists ? fs.statSync(target.real).size : undefined;
    const bytes = writeResolvedFile(ctx, target, content);
    const what = previous === undefined ? 'new file' : `replaced ${formatCount(previous)} bytes`;
    return {
      content: `Wrote ${formatCount(bytes)} bytes to ${target.relative} (${what})`,
      details: { path: target.relative, bytes, created: previous === undefined },
    };
  },
});
