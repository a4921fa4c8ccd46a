/**
 * `browser_file_upload`: chooses workspace files in a file input. Files are read by the harness (confined like
 * the file tools, and stricter: no symbolic or hard links, regular files only, size-capped) and handed to the
 * page as bytes, so the browser never opens a path the model named.
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import { defineTool, type Tool, type ToolContext, ToolError } from '../tool.js';
import { action, onRef, refParameter } from './browser-actions.js';
import { ACTION_TIMEOUT_MS, actAndSettle } from './browser-page.js';
import type { BrowserToolState } from './browser-state.js';
import { resolveInWorkspace } from './paths.js';

/** Largest file one upload may choose, in bytes. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** Most files one call may choose. */
const MAX_UPLOAD_FILES = 10;

const MIME_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.html': 'text/html',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};

/** A file as the page receives it. */
interface UploadFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/** `browser_file_upload {ref, paths}`: sets the files of a file input (or of the chooser a control opens). */
export function fileUploadTool(state: BrowserToolState): Tool {
  return defineTool({
    name: 'browser_file_upload',
    description:
      'Choose files from the workspace (paths relative to it) in the file input with this ref, or in the file chooser the element opens. Returns the page snapshot afterwards.',
    parameters: z.object({
      ref: refParameter,
      paths: z
        .array(z.string().min(1))
        .min(1)
        .max(MAX_UPLOAD_FILES)
        .describe('Workspace-relative paths of regular files, e.g. ["fixtures/photo.png"]'),
    }),
    execute: (args, context) =>
      state.run(
        `Uploading to ${args.ref}`,
        async (page) => {
          const files: UploadFile[] = [];
          for (const input of args.paths) files.push(await readUploadFile(context, input));
          const { element, target } = await onRef(state, page, args.ref);
          await actAndSettle(page, () => chooseFiles(page, element, files));
          const names = files.map((file) => file.name).join(', ');
          return state.report(`Chose ${names} in ${args.ref}.`, {
            ...action('browser_file_upload', args),
            target,
          });
        },
        action('browser_file_upload', args),
      ),
  });
}

/**
 * A workspace file's bytes for an upload. Refused, naming the path: anything outside the workspace or that the
 * session may not read, a path through a symbolic link, a hard link, anything but a regular file, a file above
 * {@link MAX_UPLOAD_BYTES}.
 */
export async function readUploadFile(context: ToolContext, input: string): Promise<UploadFile> {
  const resolved = resolveInWorkspace(context, input, { forWrite: false });
  const root = await realpath(context.workspace);
  // resolveInWorkspace follows links that stay inside; an upload takes none at all.
  if (resolved.real !== path.resolve(root, input)) {
    throw new ToolError(
      `${input} is or passes through a symbolic link; only regular files inside the workspace can be uploaded.`,
    );
  }
  if (!resolved.exists) throw new ToolError(`${input} does not exist in the workspace.`);
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await open(resolved.real, flags).catch((error: NodeJS.ErrnoException) => {
    throw new ToolError(`${input} cannot be opened for upload (${error.code ?? error.message}).`);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ToolError(`${input} is not a regular file; only files can be uploaded.`);
    if (info.nlink > 1) throw new ToolError(`${input} has several hard links; it cannot be uploaded.`);
    if (info.size > MAX_UPLOAD_BYTES) {
      throw new ToolError(
        `${input} is ${info.size} bytes; uploads are limited to ${MAX_UPLOAD_BYTES} bytes.`,
      );
    }
    const buffer = await handle.readFile();
    const name = path.basename(resolved.real);
    const mimeType = MIME_TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
    return { name, mimeType, buffer };
  } finally {
    await handle.close();
  }
}

/** Sets the files on a file input; any other element is clicked and its file chooser answered. */
async function chooseFiles(page: Page, element: Locator, files: UploadFile[]): Promise<void> {
  const fileInput = await element.evaluate(
    (node) => node instanceof HTMLInputElement && node.type === 'file',
    undefined,
    { timeout: ACTION_TIMEOUT_MS },
  );
  if (fileInput) {
    await element.setInputFiles(files, { timeout: ACTION_TIMEOUT_MS });
    return;
  }
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser', { timeout: ACTION_TIMEOUT_MS }),
    element.click({ timeout: ACTION_TIMEOUT_MS }),
  ]);
  await chooser.setFiles(files, { timeout: ACTION_TIMEOUT_MS });
}
