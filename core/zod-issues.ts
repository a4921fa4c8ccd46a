/**
 * The one formatter of zod issues for people (config file, environment, command-line options, HTTP bodies, tool
 * arguments): each issue names the field, says what a good value is, quotes what was given and, for a misspelt
 * key or choice, the name it was probably meant to be. Pure.
 */
import type { z } from 'zod';
import { didYouMean } from './suggest.js';

/** What the formatter may know beyond the issues. */
export interface IssueContext {
  /** The value that was parsed: what was given is quoted from it. */
  input?: unknown;
  /** The schema it was parsed with: the keys a misspelt one may have meant, and defaults as examples. */
  schema?: z.ZodType;
  /** How a field is named to the reader (default: its dotted path, `(root)` for the whole value). */
  label?: (path: readonly PropertyKey[]) => string;
}

/** The dotted path of a field: `run.budgets.maxCostUsd`, `webhooks[0].url`; `(root)` for the whole value. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

/** One line per issue, `path: what is wrong, not <given> (e.g. …)`. */
export function formatZodIssues(issues: ReadonlyArray<z.core.$ZodIssue>, context: IssueContext = {}): string {
  return issues.flatMap((issue) => describeIssue(issue, context)).join('\n');
}

/** The lines of one issue (an issue about several unknown keys gives one line per key). */
export function describeIssue(issue: z.core.$ZodIssue, context: IssueContext = {}): string[] {
  const label = context.label ?? issuePath;
  const path = issue.path as PropertyKey[];
  if (issue.code === 'unrecognized_keys') {
    const known = objectKeys(context.schema && fieldSchema(context.schema, path));
    return issue.keys.map((key) => {
      const hint = known.length ? didYouMean(key, known) || ` (known here: ${known.join(', ')})` : '';
      return `${label([...path, key])}: unknown key${hint}`;
    });
  }
  const given = valueAt(context.input, path);
  const field = context.schema ? fieldSchema(context.schema, path) : undefined;
  const rule = problem(issue, given);
  // A rule that shows a good value (an example, a "did you mean") needs no second one.
  const shown = rule.includes('e.g.') || rule.includes('did you mean');
  return [`${label(path)}: ${rule}${shown ? '' : example(issue, field, given)}`];
}

/** What is wrong, for a person, with what was given. */
function problem(issue: z.core.$ZodIssue, given: Given): string {
  const not = given.present ? `, not ${quote(given.value)}` : '';
  switch (issue.code) {
    case 'invalid_type':
      return given.present ? `must be ${article(issue.expected)}${not}` : 'is missing';
    case 'too_big':
      return `${bound(issue.origin, 'at most', 'less than', issue.inclusive, issue.maximum)}${not}`;
    case 'too_small':
      return `${bound(issue.origin, 'at least', 'more than', issue.inclusive, issue.minimum)}${not}`;
    case 'invalid_value':
      return `must be ${choices(issue.values)}${not}${choiceHint(given, issue.values)}`;
    case 'invalid_format':
      return `${formatRule(issue)}${not}`;
    case 'invalid_union':
      return `${unionRule(issue)}${not}${choiceHint(given, unionValues(issue))}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}${not}`;
    case 'custom':
      // A refinement's own sentence; one written as "expected …" reads as the other rules do.
      return /^expected /.test(issue.message)
        ? `must be ${issue.message.slice('expected '.length)}${not}`
        : issue.message;
    default:
      return `${issue.message.replace(/^Invalid input: /, '')}${not}`;
  }
}

function bound(
  origin: string,
  inclusiveWord: string,
  exclusiveWord: string,
  inclusive: boolean | undefined,
  limit: number | bigint | Date,
): string {
  const word = inclusive === false ? exclusiveWord : inclusiveWord;
  const value = limit instanceof Date ? limit.toISOString() : String(limit);
  if (origin === 'string')
    return value === '1' && word === 'at least'
      ? 'must not be empty'
      : `must be ${word} ${value} characters long`;
  if (origin === 'array' || origin === 'set') {
    return value === '1' && word === 'at least' ? 'must not be empty' : `must have ${word} ${value} entries`;
  }
  if (origin === 'number' && value === '0' && word === 'more than') return 'must be a positive number';
  return `must be ${word} ${value}`;
}

/** A zod format's rule: the schema's own message when it wrote one, else a sentence per format. */
function formatRule(issue: z.core.$ZodIssueInvalidStringFormat): string {
  if (/^expected /.test(issue.message)) return `must be ${issue.message.slice('expected '.length)}`;
  if (!/^Invalid/.test(issue.message)) return issue.message;
  switch (issue.format) {
    case 'url':
      return 'must be a URL (http:// or https://)';
    case 'datetime':
      return 'must be a date and time in ISO 8601 (e.g. 2027-01-31T06:00:00Z)';
    case 'date':
      return 'must be a date, YYYY-MM-DD (e.g. 2027-01-31)';
    case 'email':
      return 'must be an email address';
    default:
      return `has the wrong form (${issue.format})`;
  }
}

/** What a union accepts, from its branches: `true, false or one of "none", "registries", "open"`. */
function unionRule(issue: z.core.$ZodIssueInvalidUnion): string {
  if (issue.message !== 'Invalid input') return issue.message;
  const options = issue.errors.flatMap((branch) =>
    branch.flatMap((inner) => {
      if (inner.path.length) return [];
      if (inner.code === 'invalid_type') return [article(inner.expected)];
      if (inner.code === 'invalid_value') return [choices(inner.values)];
      return [];
    }),
  );
  return options.length ? `must be ${[...new Set(options)].join(' or ')}` : 'is not valid here';
}

/** The literal values a union's branches accept. */
function unionValues(issue: z.core.$ZodIssueInvalidUnion): unknown[] {
  return issue.errors.flatMap((branch) =>
    branch.flatMap((inner) => (inner.code === 'invalid_value' && !inner.path.length ? inner.values : [])),
  );
}

function choices(values: readonly unknown[]): string {
  if (values.length === 1) return quote(values[0]);
  return `one of ${values.map(quote).join(', ')}`;
}

function choiceHint(given: Given, values: readonly unknown[]): string {
  if (!given.present || typeof given.value !== 'string') return '';
  return didYouMean(
    given.value,
    values.filter((value): value is string => typeof value === 'string'),
  );
}

/** `a number`, `an object`, `a list`, `true or false`. */
function article(expected: string): string {
  if (expected === 'array') return 'a list';
  if (expected === 'boolean') return 'true or false';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** ` (e.g. 3, the default)` when the schema has a default to show and the rule does not already say it. */
function example(issue: z.core.$ZodIssue, field: z.ZodType | undefined, given: Given): string {
  if (issue.code === 'invalid_value' || issue.code === 'too_big' || issue.code === 'too_small') return '';
  if (issue.code === 'custom' || !field) return '';
  const fallback = defaultOf(field);
  if (fallback === undefined || (typeof fallback === 'object' && fallback !== null)) return '';
  if (given.present && given.value === fallback) return '';
  return ` (e.g. ${quote(fallback)}, the default)`;
}

interface Given {
  present: boolean;
  value?: unknown;
}

/** The value at `path` in `input`, if there is one. */
function valueAt(input: unknown, path: readonly PropertyKey[]): Given {
  let node: unknown = input;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !(key in (node as object))) return { present: false };
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node === undefined ? { present: false } : { present: true, value: node };
}

/** A value as a person reads it: strings in quotes, short JSON for the rest, a kind for big objects. */
function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}…` : value);
  if (Array.isArray(value)) return value.length ? 'a list' : '[]';
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}

// zod keeps each schema's definition in `_zod.def`: wrappers (optional, default, pipe…) point at their inner
// schema, objects have their shape, records and arrays their values' schema.
interface Definition {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  element?: z.ZodType;
  defaultValue?: unknown;
}

const definition = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Definition } })._zod.def;

/** The schema itself, without optional / nullable / default / prefault / pipe wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  for (let current = schema; ; ) {
    const def = definition(current);
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) return current;
    current = inner;
  }
}

/** The schema of the field at `path` (undefined when the path leaves the schema). */
function fieldSchema(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    if (!current) return undefined;
    const def = definition(unwrap(current));
    current =
      def.type === 'object' ? def.shape?.[String(key)] : def.type === 'record' ? def.valueType : def.element;
  }
  return current;
}

function objectKeys(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  const def = definition(unwrap(schema));
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

/** The default a field's schema gives, looking through its wrappers. */
function defaultOf(schema: z.ZodType): unknown {
  for (let current: z.ZodType | undefined = schema; current; ) {
    const def = definition(current);
    if (def.type === 'default') return def.defaultValue;
    current = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  }
  return undefined;
}
