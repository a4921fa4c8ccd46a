import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { redactSecrets } from '../core/secrets.js';
import type { AgentEvent } from './events.js';
import type { Message } from './messages.js';

/** One line of a session transcript (JSONL): a message of the conversation or an event. */
export const TranscriptLine = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('system'), at: z.string(), system: z.string(), tools: z.array(z.string()) }),
  z.object({ kind: z.literal('message'), at: z.string(), message: z.custom<Message>() }),
  z.object({ kind: z.literal('event'), at: z.string(), event: z.custom<AgentEvent>() }),
]);
export type TranscriptLine = z.infer<typeof TranscriptLine>;

/**
 * Appends a session's conversation and events to a JSONL file, one synchronous append per line so a
 * crash loses at most the line being written. Secret values are redacted before anything is written.
 */
export class TranscriptWriter {
  constructor(
    /** Absolute path of the JSONL file (parent directories are created). */
    readonly file: string,
    private readonly secrets: readonly string[] = [],
  ) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  }

  /** Appends one line. Never throws: a transcript must not end a session. */
  write(line: TranscriptLine): void {
    try {
      fs.appendFileSync(this.file, `${redactSecrets(JSON.stringify(line), this.secrets)}\n`);
    } catch {
      // A full disk or a removed data dir must not kill the session; the events still reach the sink.
    }
  }
}

/** Reads a transcript back; lines that do not parse are returned as `null` entries are skipped and counted. */
export function readTranscript(file: string): { lines: TranscriptLine[]; invalidLines: number } {
  const lines: TranscriptLine[] = [];
  let invalidLines = 0;
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!raw.trim()) continue;
    try {
      const parsed = TranscriptLine.safeParse(JSON.parse(raw));
      if (parsed.success) lines.push(parsed.data);
      else invalidLines++;
    } catch {
      invalidLines++;
    }
  }
  return { lines, invalidLines };
}
