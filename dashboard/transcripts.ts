import { readFile } from 'node:fs/promises';
import type { TranscriptResponse } from './api-types.js';
import { transcriptPath } from './paths.js';

/** A page of a session transcript, or null when the session has no transcript file. Lines that are not JSON are kept as text. */
export async function readTranscriptPage(
  dataDir: string,
  runId: string,
  seq: number,
  page: { offset: number; limit: number },
): Promise<TranscriptResponse | null> {
  let text: string;
  try {
    text = await readFile(transcriptPath(dataDir, runId, seq), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const raw = text.split('\n').filter((line) => line.trim() !== '');
  const lines = raw.slice(page.offset, page.offset + page.limit).map((line) => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      return { kind: 'invalid', raw: line };
    }
  });
  return { seq, total: raw.length, offset: page.offset, limit: page.limit, lines };
}
