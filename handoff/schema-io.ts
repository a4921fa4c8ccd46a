import type { z } from 'zod';
import { FormatError } from './errors.js';

/** Renders a zod issue path the way a reader of the JSON file thinks of it: `[3].steps[0]`. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

/** One line per zod issue: `<path>: <message>`. */
export function issueLines(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
}

/** Parses JSON text, turning a syntax error into a {@link FormatError} naming the file. */
export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new FormatError(file, [`not valid JSON (${(error as Error).message})`], { cause: error });
  }
}

/**
 * Validates `raw` with `schema` and returns the parsed value with its keys in the order they had in `raw`
 * (zod puts known keys first), so a file written back keeps its field order.
 */
export function parseKeepingOrder<S extends z.ZodType>(schema: S, raw: unknown, file: string): z.infer<S> {
  const result = schema.safeParse(raw);
  if (!result.success) throw new FormatError(file, issueLines(result.error));
  return reorderLike(result.data, raw) as z.infer<S>;
}

function reorderLike(parsed: unknown, raw: unknown): unknown {
  if (Array.isArray(parsed) && Array.isArray(raw)) return parsed.map((item, i) => reorderLike(item, raw[i]));
  if (!isPlainObject(parsed) || !isPlainObject(raw)) return parsed;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) if (key in parsed) out[key] = reorderLike(parsed[key], raw[key]);
  for (const key of Object.keys(parsed)) if (!(key in out)) out[key] = parsed[key];
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
