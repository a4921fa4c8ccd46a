/**
 * The planner's conversation with a person at a terminal: questions and the "start a run?" prompt go to
 * stderr (stdout stays for the spec or JSON), answers are read line by line from stdin. End of input means
 * "no answer", never a hang; the reader is closed afterwards so an open stdin cannot keep the process alive.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { indentContinuation } from '../core/terminal-text.js';
import type { AskUser } from '../roles/planner-tools.js';
import type { TextSink } from './output.js';

/** Lines typed by the user, one at a time; `null` once the input has ended. */
export interface LineReader {
  next(signal?: AbortSignal): Promise<string | null>;
  close(): void;
}

/** A line reader over `input` (stdin). Created only in interactive mode: script mode never touches stdin. */
export function openLineReader(input: Readable): LineReader {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  const iterator = lines[Symbol.asyncIterator]();
  let ended = false;
  return {
    async next(signal) {
      if (ended) return null;
      const read = iterator.next().then((result) => {
        if (result.done) ended = true;
        return result.done ? null : result.value;
      });
      if (!signal) return read;
      return new Promise<string | null>((resolve, reject) => {
        const onAbort = () => reject(signal.reason ?? new Error('aborted'));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        read.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
    },
    close() {
      lines.close();
      // A paused pipe or TTY must not hold the event loop open after the command is done.
      input.destroy();
    },
  };
}

/** `ask_user` at a terminal: the questions, numbered, then one answer line each (Enter alone = no answer). */
export function terminalAsk(reader: LineReader, stderr: TextSink): AskUser {
  return async (questions, signal) => {
    stderr.write(`\nThe planner has ${questions.length} question(s) (Enter alone lets it decide):\n`);
    const answers: string[] = [];
    for (const [index, question] of questions.entries()) {
      stderr.write(`\n${index + 1}. ${indentContinuation(question.trim())}\n> `);
      const line = await reader.next(signal);
      if (line === null) stderr.write('(no input)\n');
      answers.push(line ?? '');
    }
    stderr.write('\n');
    return answers;
  };
}

/** Asks a yes/no question; only `y` or `yes` (any case) is yes, end of input is no. */
export async function confirm(reader: LineReader, stderr: TextSink, question: string): Promise<boolean> {
  stderr.write(`${question} [y/N] `);
  const line = await reader.next();
  if (line === null) stderr.write('(no input: no)\n');
  return /^\s*y(es)?\s*$/i.test(line ?? '');
}
