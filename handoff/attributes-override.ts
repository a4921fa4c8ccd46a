/**
 * The text of the harness's attribute override in `.git/info/attributes` (handoff/git-attributes.ts writes it
 * before every command; handoff/git-guard.ts recognises it): apart so the guard can know it without the writer.
 */

/**
 * The override: no end-of-line conversion (`-text -eol -crlf`), no filter or ident expansion, no re-encoding;
 * `diff` and `merge` back to git's built-in behaviour (a committed `-merge` would turn every lane merge into a
 * conflict, a `diff=` driver would run a configured program).
 */
export const HARNESS_ATTRIBUTES_LINE =
  '* -text -eol -crlf -filter -ident -working-tree-encoding !diff !merge !conflict-marker-size';

const HEADER = '# nightshift: harness git keeps the bytes of every blob (handoff/git-attributes.ts)';

/** Where the override lives, relative to the work tree. */
export const ATTRIBUTES_FILE = '.git/info/attributes';

/** True when the last non-empty line of `text` is the override. */
export function endsWithOverride(text: string): boolean {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines[lines.length - 1]?.trim() === HARNESS_ATTRIBUTES_LINE;
}

/** The file's text with the override as its last lines; the operator's own lines are kept above it. */
export function withOverride(text: string): string {
  const kept = text
    .split('\n')
    .filter((line) => line.trim() !== HARNESS_ATTRIBUTES_LINE && line.trim() !== HEADER)
    .join('\n')
    .trimEnd();
  return `${kept === '' ? '' : `${kept}\n`}${HEADER}\n${HARNESS_ATTRIBUTES_LINE}\n`;
}
