/**
 * The CLI's output as a terminal shows it. Every command writes through {@link terminalSink}s (resolveDeps wraps
 * stdout and stderr), so any text the workspace or the model controls is printed escaped wherever it is quoted;
 * the CLI's own terminal control (erasing the progress line) is the one separate, trusted path.
 */
import { printable } from '../core/terminal-text.js';

export { oneLine, printable } from '../core/terminal-text.js';

// The CLI's own terminal control: carriage return + erase line, so a redrawn progress line overwrites the old one.
const ERASE_LINE = '\r\x1b[2K';

/** A text sink whose text is shown as text: control characters escaped, newlines and tabs kept. */
export interface TerminalSink {
  /** Writes `text` with every control character but tab and newline escaped. */
  write(text: string): boolean;
  /** The CLI's own control sequence, unescaped: back to the start of the line and erase it (a terminal only). */
  eraseLine(): void;
  /** Whether the underlying stream is a terminal. */
  readonly isTTY: boolean;
  /** The terminal's width, when known. */
  readonly columns: number | undefined;
}

const TERMINAL_SINK = Symbol('nightshift.terminalSink');

/**
 * `sink` as a {@link TerminalSink}; a sink already wrapped is returned as is. `isTTY` and `columns` are read from
 * `sink` when asked (a terminal's width changes).
 */
export function terminalSink(
  sink: { write(text: string): unknown; isTTY?: boolean; columns?: number } | TerminalSink,
): TerminalSink {
  if (TERMINAL_SINK in sink) return sink as TerminalSink;
  const raw = sink as { write(text: string): unknown; isTTY?: boolean; columns?: number };
  return {
    [TERMINAL_SINK]: true,
    write(text: string): boolean {
      raw.write(printable(text));
      return true;
    },
    eraseLine(): void {
      raw.write(ERASE_LINE);
    },
    get isTTY(): boolean {
      return Boolean(raw.isTTY);
    },
    get columns(): number | undefined {
      return raw.columns;
    },
  } as TerminalSink;
}

/** A stream that adds an ISO timestamp (UTC, to the second) at the start of every line written to `sink`. */
export function stampLines(
  sink: { write(text: string): unknown },
  now: () => Date = () => new Date(),
): { write(text: string): boolean; isTTY: false } {
  let atLineStart = true;
  return {
    isTTY: false,
    write(text: string): boolean {
      let out = '';
      for (const piece of text.split(/(?<=\n)/)) {
        if (piece === '') continue;
        if (atLineStart) out += `${now().toISOString().slice(0, 19)}Z `;
        out += piece;
        atLineStart = piece.endsWith('\n');
      }
      sink.write(out);
      return true;
    },
  };
}

/**
 * The command's deps with stderr stamped when it is not a terminal (CI logs, a file): every progress line, note
 * and message of a foreground run then carries its time.
 */
export function stampedWhenLogged<T extends { stderr: TerminalSink; now: () => Date }>(resolved: T): T {
  if (resolved.stderr.isTTY) return resolved;
  return { ...resolved, stderr: terminalSink(stampLines(resolved.stderr, resolved.now)) };
}
