import fs from 'node:fs';
import readline from 'node:readline';
import { z } from 'zod';
import { formatBytes, formatCount } from '../../core/truncate.js';
import { defineTool, ToolError } from '../tool.js';
import { resolveInWorkspace } from './paths.js';

/** Limits of the `read` tool. */
export const READ_LIMITS = {
  /** Lines returned when `limit` is not given. */
  defaultLines: 2000,
  /** Characters kept of one line; the rest is cut with a marker. */
  maxLineChars: 2000,
  /** Bytes of numbered output per call; reading stops early (with a note) beyond it. */
  maxOutputBytes: 100 * 1024,
  /** Files up to this size are read whole (so the total line count is known); larger ones are streamed. */
  wholeFileBytes: 32 * 1024 * 1024,
  /** Entries listed for a directory. */
  maxDirEntries: 1000,
  /** Bytes sniffed to tell binary from text. */
  sniffBytes: 8192,
} as const;

/** Arguments of `read`. */
export const ReadArgs = z.object({
  path: z
    .string()
    .describe('File or directory path, relative to the workspace root (or absolute inside it).'),
  offset: z.number().int().min(1).optional().describe('First line to show, 1-based (default 1).'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Maximum number of lines to show (default ${READ_LIMITS.defaultLines}).`),
});
/** Arguments of `read`. */
export type ReadArgs = z.infer<typeof ReadArgs>;

/** True when the first bytes of a file look binary (a NUL byte or invalid UTF-8). */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.includes(0)) return true;
  // Drop a multi-byte character cut off by the end of the sample before validating.
  let end = sample.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = sample[end - back] as number;
    if ((byte & 0xc0) === 0xc0) {
      end -= back;
      break;
    }
    if ((byte & 0x80) === 0) break;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample.subarray(0, end));
    return false;
  } catch {
    return true;
  }
}

function readSample(file: string): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(READ_LIMITS.sniffBytes);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

function numberLine(lineNumber: number, text: string): string {
  const cut =
    text.length > READ_LIMITS.maxLineChars
      ? `${text.slice(0, READ_LIMITS.maxLineChars)} [... line cut: ${formatCount(text.length)} characters]`
      : text;
  return `${String(lineNumber).padStart(6, ' ')}\t${cut}`;
}

/** Numbers lines `offset..offset+limit-1`, stopping early at the output byte budget. */
function renderLines(
  lines: readonly string[],
  offset: number,
  limit: number,
): { out: string[]; last: number } {
  const out: string[] = [];
  let bytes = 0;
  let last = offset - 1;
  for (let n = offset; n < offset + limit && n <= lines.length; n++) {
    const rendered = numberLine(n, lines[n - 1] as string);
    bytes += Buffer.byteLength(rendered) + 1;
    if (bytes > READ_LIMITS.maxOutputBytes && out.length > 0) break;
    out.push(rendered);
    last = n;
  }
  return { out, last };
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

function readWholeFile(file: string, relative: string, offset: number, limit: number): string {
  const lines = splitLines(fs.readFileSync(file, 'utf8'));
  if (lines.length === 0) return `(${relative} is empty)`;
  if (offset > lines.length) {
    throw new ToolError(`offset ${offset} is past the end of ${relative}, which has ${lines.length} lines`);
  }
  const { out, last } = renderLines(lines, offset, limit);
  if (last < lines.length) {
    out.push(`[showing lines ${offset}-${last} of ${lines.length}; continue with offset=${last + 1}]`);
  }
  return out.join('\n');
}

async function streamLargeFile(file: string, size: number, offset: number, limit: number): Promise<string> {
  const input = fs.createReadStream(file, { encoding: 'utf8' });
  const reader = readline.createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  const out: string[] = [];
  let bytes = 0;
  let n = 0;
  let last = offset - 1;
  let more = false;
  try {
    for await (const line of reader) {
      n++;
      if (n < offset) continue;
      const rendered = numberLine(n, line);
      bytes += Buffer.byteLength(rendered) + 1;
      if (n >= offset + limit || (bytes > READ_LIMITS.maxOutputBytes && out.length > 0)) {
        more = true;
        break;
      }
      out.push(rendered);
      last = n;
    }
  } finally {
    reader.close();
    input.destroy();
  }
  if (out.length === 0) throw new ToolError(`offset ${offset} is past the end of the file (${n} lines)`);
  if (more) {
    out.push(
      `[showing lines ${offset}-${last} of a ${formatBytes(size)} file; continue with offset=${last + 1}]`,
    );
  }
  return out.join('\n');
}

function listDirectory(dir: string, relative: string): string {
  const entries = fs
    .readdirSync(dir, { withFileTypes: true })
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
  if (entries.length === 0) return `(${relative}/ is an empty directory)`;
  const shown = entries.slice(0, READ_LIMITS.maxDirEntries);
  const header = `${relative}/ is a directory with ${entries.length} entries:`;
  const footer =
    entries.length > shown.length ? [`[... ${entries.length - shown.length} more entries not shown]`] : [];
  return [header, ...shown, ...footer].join('\n');
}

/** The `read` tool: numbered lines of a text file inside the workspace, or a directory listing. */
export const readTool = defineTool({
  name: 'read',
  description:
    'Read a text file in the workspace. Returns numbered lines (line number, tab, text). ' +
    `Use offset/limit for large files (default ${READ_LIMITS.defaultLines} lines). A directory path lists its entries.`,
  parameters: ReadArgs,
  async execute(args, ctx) {
    const { path: input, offset = 1, limit = READ_LIMITS.defaultLines } = ReadArgs.parse(args);
    const target = resolveInWorkspace(ctx, input, { forWrite: false });
    if (!target.exists) throw new ToolError(`${target.relative} does not exist`);
    const stat = fs.statSync(target.real);
    if (stat.isDirectory()) return listDirectory(target.real, target.relative);
    if (!stat.isFile()) throw new ToolError(`${target.relative} is not a regular file`);
    if (looksBinary(readSample(target.real))) {
      throw new ToolError(
        `${target.relative} is a binary file (${formatBytes(stat.size)}); read only shows text. ` +
          'Inspect it with bash (e.g. `file`, `xxd | head`) if needed.',
      );
    }
    if (stat.size <= READ_LIMITS.wholeFileBytes)
      return readWholeFile(target.real, target.relative, offset, limit);
    return streamLargeFile(target.real, stat.size, offset, limit);
  },
});
