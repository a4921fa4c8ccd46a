/** Parsing helpers of the configuration: durations (`90m`, `1h30m`) and schema errors that name every bad field. */
import type { z } from 'zod';
import { InputError } from '../core/errors.js';
import { formatZodIssues } from '../core/zod-issues.js';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration like `30s`, `90m`, `6h`, `1d` or `1h30m`; throws InputError otherwise. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    total += Number(match[1]) * (DURATION_UNITS[match[2] as string] as number);
    consumed = part.lastIndex;
  }
  if (!trimmed || consumed !== trimmed.length || total <= 0) {
    throw new InputError('DURATION_INVALID', `Invalid duration "${text}".`, {
      hint: 'Use a positive number followed by s, m, h or d, e.g. 30s, 90m, 6h, 1d or 1h30m.',
    });
  }
  return total;
}

/** Parses `value` with `schema` or throws an InputError listing every bad field and where it came from. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, source: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InputError(
    'CONFIG_INVALID',
    `Invalid configuration in ${source}:\n${indent(formatZodIssues(result.error.issues, { input: value, schema }))}`,
    {
      hint: `Fix the fields named above in ${source}.`,
    },
  );
}

/** Each line indented by two spaces (the issues under the message's first line). */
export function indent(lines: string): string {
  return lines
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
