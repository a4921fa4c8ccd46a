import { appendFile, open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { WORKSPACE_FILES } from './formats.js';

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

/** Appends one entry to the workspace's `progress.md` (created when missing). */
export async function appendProgress(
  workspace: string,
  entry: ProgressEntry,
  now: () => Date = () => new Date(),
): Promise<void> {
  const file = path.join(workspace, WORKSPACE_FILES.progress);
  const existing = await sizeOf(file);
  const section = renderProgressEntry(entry, now);
  const prefix = !existing ? '# Progress\n\n' : (await endsWithBlankLine(file)) ? '' : '\n\n';
  await appendFile(file, prefix + section);
}

/** Which progress log the workspace has: `progress.md`, else the quickstart's `claude-progress.txt`, else none. */
export async function progressSource(workspace: string): Promise<ProgressSource> {
  if ((await sizeOf(path.join(workspace, WORKSPACE_FILES.progress))) !== null) return 'progress.md';
  if ((await sizeOf(path.join(workspace, WORKSPACE_FILES.quickstartProgress))) !== null)
    return 'claude-progress.txt';
  return null;
}

/**
 * The last `maxBytes` of the progress log (ours, or the quickstart's when ours is missing), cut at a line start,
 * with a note when earlier text was left out. Empty when there is no log.
 */
export async function progressTail(workspace: string, maxBytes: number): Promise<string> {
  const source = await progressSource(workspace);
  if (source === null) return '';
  const text = await readFile(path.join(workspace, source), 'utf8');
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const tail = bytes.subarray(bytes.length - maxBytes).toString('utf8');
  const lineStart = tail.indexOf('\n');
  const cut = (lineStart >= 0 ? tail.slice(lineStart + 1) : tail.replace(/^\uFFFD+/, '')).replace(/^\n+/, '');
  return `[… earlier ${source} entries omitted …]\n${cut}`;
}

/** Reads the quickstart's `claude-progress.txt`, or null when the workspace has none. */
export async function readQuickstartProgress(workspace: string): Promise<string | null> {
  try {
    return await readFile(path.join(workspace, WORKSPACE_FILES.quickstartProgress), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function endsWithBlankLine(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(2, size));
    await handle.read(buffer, 0, buffer.length, size - buffer.length);
    return buffer.toString() === '\n\n';
  } finally {
    await handle.close();
  }
}
