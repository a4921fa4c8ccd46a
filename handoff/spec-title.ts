/**
 * A run's name: given with `--name`, else the spec's title — its first `# heading` (outside fenced code) — else the
 * spec's file name without its extension. Pure; one line of plain text, at most {@link MAX_RUN_NAME} characters.
 */
import path from 'node:path';
import { z } from 'zod';
import { InputError } from '../core/errors.js';

/** Longest run name kept (a title longer than this is cut with `…`; `--name` longer than this is refused). */
export const MAX_RUN_NAME = 80;

/** A run name as stored: one line, no control characters, 1–80 characters. */
export const RunName = z
  .string()
  .min(1)
  .max(MAX_RUN_NAME)
  .regex(/^[^\p{Cc}]+$/u, 'expected one line of text without control characters');
export type RunName = z.infer<typeof RunName>;

/** The text of the first level-1 ATX heading outside fenced code blocks, if any. */
export function specHeading(text: string): string | undefined {
  let fence: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^\s{0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1];
    if (heading?.trim()) return heading;
  }
  return undefined;
}

/** One line of plain text: control characters dropped, inline markup (`*`, `_`, backticks) kept as written, cut. */
function plainLine(text: string): string {
  const flat = text
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > MAX_RUN_NAME ? `${flat.slice(0, MAX_RUN_NAME - 1).trimEnd()}…` : flat;
}

/** The name a spec gives a run: its title, else its file name without extension (`app_spec.md` → `app_spec`). */
export function nameFromSpec(text: string, specPath: string): string {
  const title = specHeading(text);
  const fromTitle = title === undefined ? '' : plainLine(title);
  if (fromTitle) return fromTitle;
  const base = path.basename(specPath, path.extname(specPath));
  return plainLine(base) || 'unnamed';
}

/** `--name NAME` (or a name from the dashboard): trimmed, refused with the rule when it cannot be a name. */
export function checkRunName(value: string, option = '--name'): string {
  const name = value.trim();
  const parsed = RunName.safeParse(name);
  if (parsed.success) return parsed.data;
  throw new InputError(
    'RUN_NAME_INVALID',
    `${option} must be one line of 1 to ${MAX_RUN_NAME} characters without control characters, not ${JSON.stringify(value.length > 100 ? `${value.slice(0, 97)}…` : value)}.`,
    { hint: `e.g. ${option} "Todo app, night 3"` },
  );
}
