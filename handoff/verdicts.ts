import { FormatError } from './errors.js';
import { VerdictRecord, WORKSPACE_FILES } from './formats.js';
import { appendWorkspaceFile, readWorkspaceText } from './safe-fs.js';
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
  await appendWorkspaceFile(workspace, WORKSPACE_FILES.verdicts, `${JSON.stringify(result.data)}\n`);
}

/** Largest verdict log read (a record is a few KB: thousands of evaluations fit). */
const MAX_VERDICTS_BYTES = 64 * 1024 * 1024;

/** Every record of `.nightshift/verdicts.jsonl` in order, and every line that is not a valid record. */
export async function readVerdicts(
  workspace: string,
): Promise<{ records: VerdictRecord[]; invalid: InvalidVerdictLine[] }> {
  const text = await readWorkspaceText(workspace, WORKSPACE_FILES.verdicts, { maxBytes: MAX_VERDICTS_BYTES });
  if (text === null) return { records: [], invalid: [] };
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
