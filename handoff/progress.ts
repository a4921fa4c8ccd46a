import path from 'node:path';
import { z } from 'zod';
import { WORKSPACE_FILES } from './formats.js';
import {
  appendWorkspaceFile,
  lstatOrNull,
  readWorkspaceTail,
  readWorkspaceText,
  UnsafeFileError,
} from './safe-fs.js';

/** One entry appended to `progress.md` by (or on behalf of) a session. */
export const ProgressEntry = z.object({
  role: z.string().min(1),
  session: z.number().int().nonnegative(),
  feature: z.string().optional(),
  text: z.string(),
  /** ISO time of the entry; the current time when omitted. */
  at: z.string().optional(),
});
export type ProgressEntry = z.infer<typeof ProgressEntry>;

/** Where a progress log was found: ours, the quickstart's, or none. */
export type ProgressSource = 'progress.md' | 'claude-progress.txt' | null;

/** The markdown section of one entry: `## Session 7 · generator · F-003 · <time>` followed by the text. */
export function renderProgressEntry(input: ProgressEntry, now: () => Date = () => new Date()): string {
  const entry = ProgressEntry.parse(input);
  const parts = [`Session ${entry.session}`, entry.role];
  if (entry.feature) parts.push(entry.feature);
  parts.push(entry.at ?? now().toISOString());
  return `## ${parts.join(' · ')}\n\n${entry.text.trim()}\n\n`;
}

/** Appends one entry to the workspace's `progress.md` (created when missing; a link there is refused). */
export async function appendProgress(
  workspace: string,
  entry: ProgressEntry,
  now: () => Date = () => new Date(),
): Promise<void> {
  const section = renderProgressEntry(entry, now);
  const end = await readWorkspaceTail(workspace, WORKSPACE_FILES.progress, 2);
  const prefix = !end?.size ? '# Progress\n\n' : end.bytes.toString() === '\n\n' ? '' : '\n\n';
  await appendWorkspaceFile(workspace, WORKSPACE_FILES.progress, prefix + section);
}

/** True when something (of any kind, a link included) is at the workspace-relative path; nothing is followed. */
async function present(workspace: string, relative: string): Promise<boolean> {
  return (await lstatOrNull(path.join(workspace, relative))) !== null;
}

/** Which progress log the workspace has: `progress.md`, else the quickstart's `claude-progress.txt`, else none. */
export async function progressSource(workspace: string): Promise<ProgressSource> {
  if (await present(workspace, WORKSPACE_FILES.progress)) return 'progress.md';
  if (await present(workspace, WORKSPACE_FILES.quickstartProgress)) return 'claude-progress.txt';
  return null;
}

/**
 * The last `maxBytes` of the progress log (ours, or the quickstart's when ours is missing), cut at a line start,
 * with a note when earlier text was left out. Empty when there is no log. Only the tail is read, whatever the
 * file's size; a log the harness refuses to read (a link, a FIFO) gives a one-line note instead.
 */
export async function progressTail(workspace: string, maxBytes: number): Promise<string> {
  const source = await progressSource(workspace);
  if (source === null) return '';
  let tail: Awaited<ReturnType<typeof readWorkspaceTail>>;
  try {
    tail = await readWorkspaceTail(workspace, source, maxBytes);
  } catch (error) {
    if (error instanceof UnsafeFileError) return `[${source} not shown: ${error.message}]`;
    throw error;
  }
  if (tail === null) return '';
  const text = tail.bytes.toString('utf8');
  if (tail.size <= maxBytes) return text;
  const lineStart = text.indexOf('\n');
  const cut = (lineStart >= 0 ? text.slice(lineStart + 1) : text.replace(/^\uFFFD+/, '')).replace(/^\n+/, '');
  return `[… earlier ${source} entries omitted …]\n${cut}`;
}

/** Largest quickstart progress log read whole. */
const MAX_QUICKSTART_PROGRESS_BYTES = 4 * 1024 * 1024;

/** Reads the quickstart's `claude-progress.txt`, or null when the workspace has none. */
export async function readQuickstartProgress(workspace: string): Promise<string | null> {
  return readWorkspaceText(workspace, WORKSPACE_FILES.quickstartProgress, {
    maxBytes: MAX_QUICKSTART_PROGRESS_BYTES,
  });
}
