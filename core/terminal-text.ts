/**
 * Text a terminal shows as text, not as commands. Model output, app logs, feature descriptions and failure
 * reasons are written by the workspace or the model; a control character in them (ESC starting a colour, a
 * cursor move, a title change, OSC 52 writing the clipboard, a carriage return overwriting our line) is shown
 * visibly escaped instead of being obeyed. Pure, so every layer can use it (the CLI wraps its whole output in it).
 */

// C0 controls but tab and newline, DEL, and C1 controls (0x9b alone is a CSI on many terminals).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * How one control character is shown: C0 as `\x1b`, DEL and C1 as `\u009b`. The `\u00NN` form for DEL and C1
 * keeps JSON output valid (JSON.stringify escapes C0 itself but leaves DEL and C1 raw, and `\u009b` is the same
 * character in JSON) and tells the character U+009B apart from a byte 0x9b.
 */
function escapeControl(char: string): string {
  const code = char.charCodeAt(0);
  const hex = code.toString(16).padStart(2, '0');
  return code < 0x20 ? `\\x${hex}` : `\\u00${hex}`;
}

/** `text` with every control character but tab and newline shown escaped (ESC as `\x1b`, CSI as `\u009b`). */
export function printable(text: string): string {
  return text.replace(CONTROL, escapeControl);
}

/**
 * `text` on one line, for a place inside a line of ours: control characters escaped, whitespace runs (newlines
 * too) as one space, cut to `width`. Untrusted text with a newline could otherwise start a line that looks like
 * one of ours ("nightshift: run done").
 */
export function oneLine(text: string, width = 200): string {
  const flat = printable(text.replace(/\s+/g, ' ').trim());
  return flat.length <= width ? flat : `${flat.slice(0, Math.max(0, width - 1))}…`;
}

/** Whether `text` holds a character a terminal could obey (a C0 control but tab and newline, DEL, a C1 control). */
export function hasControls(text: string): boolean {
  return new RegExp(CONTROL.source).test(text);
}

/**
 * `text` kept on its lines but every line after the first indented by `indent` (control characters escaped): for
 * untrusted text that is meant to have lines (a planner's question), so none of them starts a line of ours.
 */
export function indentContinuation(text: string, indent = '   '): string {
  return printable(text.replace(/\r\n?/g, '\n')).replaceAll('\n', `\n${indent}`);
}
