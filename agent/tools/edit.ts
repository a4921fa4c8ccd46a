import fs from 'node:fs';
import { z } from 'zod';
import { defineTool, ToolError } from '../tool.js';
import { resolveInWorkspace } from './paths.js';
import { looksBinary } from './read.js';
import { writeResolvedFile } from './write.js';

/** Arguments of `edit`. */
export const EditArgs = z.object({
  path: z.string().describe('File path, relative to the workspace root (or absolute inside it).'),
  old_string: z.string().describe('Exact text to replace (whitespace and indentation included).'),
  new_string: z.string().describe('Text to put in its place.'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
});
/** Arguments of `edit`. */
export type EditArgs = z.infer<typeof EditArgs>;

/** Lines of context shown around the first change in the result. */
const SNIPPET_CONTEXT_LINES = 3;
/** Lines of the changed region shown at most. */
const SNIPPET_MAX_LINES = 20;

/** Start offsets of the non-overlapping occurrences of `needle` in `haystack`. */
export function findOccurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  if (needle === '') return found;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function notFoundMessage(relative: string, content: string, oldString: string): string {
  const hints: string[] = [];
  if (content.includes('\r\n') && !oldString.includes('\r\n') && oldString.includes('\n')) {
    hints.push('the file uses CRLF line endings');
  }
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (squash(oldString) !== '' && squash(content).includes(squash(oldString))) {
    hints.push('a match exists when whitespace is ignored, so the indentation or line breaks differ');
  }
  const hint = hints.length ? ` Note: ${hints.join('; ')}.` : '';
  return (
    `old_string was not found in ${relative}. It must match exactly, including whitespace and indentation; ` +
    `read the file again and copy the text.${hint}`
  );
}

function snippet(content: string, firstLine: number, changedLines: number): string {
  const lines = content.split('\n');
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT_LINES);
  const to = Math.min(
    lines.length,
    firstLine + Math.min(changedLines, SNIPPET_MAX_LINES) + SNIPPET_CONTEXT_LINES - 1,
  );
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`${String(n).padStart(6, ' ')}\t${lines[n - 1]}`);
  return out.join('\n');
}

/** Applies an edit to text, or explains why it cannot be applied. */
export function applyEdit(
  content: string,
  relative: string,
  args: Pick<EditArgs, 'old_string' | 'new_string' | 'replace_all'>,
): { content: string; lines: number[] } {
  const { old_string: oldString, new_string: newString, replace_all: replaceAll = false } = args;
  if (oldString === '') throw new ToolError('old_string is empty; to create or overwrite a file use write');
  if (oldString === newString)
    throw new ToolError('old_string and new_string are the same: nothing to change');
  const found = findOccurrences(content, oldString);
  if (found.length === 0) throw new ToolError(notFoundMessage(relative, content, oldString));
  const lines = found.map((at) => lineAt(content, at));
  if (found.length > 1 && !replaceAll) {
    throw new ToolError(
      `old_string matches ${found.length} places in ${relative} (lines ${lines.slice(0, 20).join(', ')}); ` +
        'include more surrounding lines to make it unique, or set replace_all: true to change every occurrence',
    );
  }
  const first = found[0] as number;
  const updated = replaceAll
    ? content.split(oldString).join(newString)
    : content.slice(0, first) + newString + content.slice(first + oldString.length);
  return { content: updated, lines };
}

/** The `edit` tool: exact string replacement in a file inside the workspace. */
export const editTool = defineTool({
  name: 'edit',
  description:
    'Replace exact text in a workspace file. old_string must match exactly (whitespace included) and be ' +
    'unique in the file unless replace_all is true. Returns the changed lines.',
  parameters: EditArgs,
  async execute(args, ctx) {
    const parsed = EditArgs.parse(args);
    const target = resolveInWorkspace(ctx, parsed.path, { forWrite: true });
    if (!target.exists) throw new ToolError(`${target.relative} does not exist; create it with write`);
    if (!fs.statSync(target.real).isFile()) throw new ToolError(`${target.relative} is not a regular file`);
    const raw = fs.readFileSync(target.real);
    if (looksBinary(raw.subarray(0, 8192))) throw new ToolError(`${target.relative} is a binary file`);
    const { content, lines } = applyEdit(raw.toString('utf8'), target.relative, parsed);
    writeResolvedFile(ctx, target, content);
    const count = lines.length;
    const where = `line${count > 1 ? 's' : ''} ${lines.slice(0, 20).join(', ')}${count > 20 ? ', …' : ''}`;
    const firstLine = lines[0] as number;
    const changed = parsed.new_string.split('\n').length;
    return {
      content:
        `Edited ${target.relative}: replaced ${count} occurrence${count > 1 ? 's' : ''} at ${where}.\n` +
        snippet(content, firstLine, changed),
      details: { path: target.relative, replacements: count },
    };
  },
});
