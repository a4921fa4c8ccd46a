import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { FormatError } from './errors.js';
import { VerdictRecord, WORKSPACE_FILES } from './formats.js';
import { issueLines } from './schema-io.js';

/** A line of `verdicts.jsonl` that could not be read, reported rather than skipped silently. */
export interface InvalidVerdictLine {
  /** 1-based line number. */
  line: number;
  /** What is wrong with it. */
  error: string;
}

/** Appends one validated record to `.nightshift/verdicts.jsonl`; throws {@link FormatError} when the record is invalid. */
export async function appendVerdict(workspace: string, record: VerdictRecord): Promise<void> {
  const result = VerdictRecord.safeParse(record);
  if (!result.success) throw new FormatError(WORKSPACE_FILES.verdicts, issueLines(result.error));
  const file = path.join(workspace, WORKSPACE_FILES.verdicts);
  await mkdir(path.dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify(result.data)}\n`);
}

/** Every record of `.nightshift/verdicts.jsonl` in order, and every line that is not a valid record. */
export async function readVerdicts(
  workspace: string,
): Promise<{ records: VerdictRecord[]; invalid: InvalidVerdictLine[] }> {
  let text: string;
  try {
    text = await readFile(path.join(workspace, WORKSPACE_FILES.verdicts), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], invalid: [] };
    throw error;
  }
  const records: VerdictRecord[] = [];
  const invalid: InvalidVerdictLine[] = [];
  text.split('\n').forEach((content, index) => {
    if (content.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(content);
    } catch (error) {
      invalid.push({ line: index + 1, error: `not valid JSON (${(error as Error).message})` });
      return;
    }
    const result = VerdictRecord.safeParse(raw);
    if (result.success) records.push(result.data);
    else invalid.push({ line: index + 1, error: issueLines(result.error).join('; ') });
  });
  return { records, invalid };
}
