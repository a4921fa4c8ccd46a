/**
 * Text a terminal shows as text: model output, tool arguments and log lines printed by `logs` and `follow` go
 * through here, so a control sequence in them (a colour, a cursor move, a title change, OSC 8 links) is printed
 * visibly escaped instead of being obeyed. One place, so a shared escaper can replace it.
 */

// C0 controls but tab and newline, DEL, and C1 controls (0x9b alone is a CSI on many terminals).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with every control character but tab and newline shown as `\xNN` (ESC becomes `\x1b`). */
export function printable(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** `text` on one line for a log line: control characters escaped, whitespace runs (newlines too) as one space, cut to `width`. */
export function oneLine(text: string, width = 200): string {
  const flat = printable(text.replace(/\s+/g, ' ').trim());
  return flat.length <= width ? flat : `${flat.slice(0, Math.max(0, width - 1))}…`;
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
export function stampedWhenLogged<T extends { stderr: { write(text: string): unknown }; now: () => Date }>(
  resolved: T,
): T {
  if ((resolved.stderr as { isTTY?: boolean }).isTTY) return resolved;
  return { ...resolved, stderr: stampLines(resolved.stderr, resolved.now) };
}
