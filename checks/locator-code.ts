/**
 * Locators of recorded checks, stored as a small, safe subset of Playwright's JavaScript locator code
 * (`getByRole('button', { name: 'Add', exact: true })`, chained with `.nth(1)`, …). The code is parsed by the
 * strict grammar below — never evaluated — printed back canonically, and turned into a real Locator by calls.
 * Snapshot refs (`getByRef('e12')`, `aria-ref=e12`) are not part of the grammar: they die with the page.
 */
import type { Locator, Page } from 'playwright-core';
import { NightshiftError } from '../core/errors.js';

/** One call of a locator chain. */
export type LocatorStep =
  | { kind: 'role'; role: string; name?: string; exact?: boolean }
  | { kind: 'text' | 'label' | 'placeholder'; text: string; exact?: boolean }
  | { kind: 'testId'; id: string }
  | { kind: 'css'; selector: string }
  | { kind: 'nth'; index: number }
  | { kind: 'first' | 'last' };

/** Locator code outside the supported grammar; the message says where and what is accepted. */
export class LocatorCodeError extends NightshiftError {
  constructor(code: string, detail: string) {
    super('LOCATOR_CODE_INVALID', `Locator ${JSON.stringify(code)} is not supported: ${detail}`, {
      hint: "use getByRole('role', { name: '…', exact: true }), getByText, getByLabel, getByTestId, getByPlaceholder, locator('css'), chained with .nth(n) / .first() / .last()",
      exitCode: 2,
    });
  }
}

const ROLE_OPTIONS = ['name', 'exact'] as const;
const TEXT_OPTIONS = ['exact'] as const;

/** Parses locator code (with or without a leading `page.`) into its steps; throws {@link LocatorCodeError}. */
export function parseLocatorCode(code: string): LocatorStep[] {
  const reader = new Reader(code);
  reader.skipSpace();
  if (code.trimStart().startsWith('page.')) reader.expect('page.');
  const steps: LocatorStep[] = [];
  do {
    steps.push(readCall(reader));
    reader.skipSpace();
  } while (reader.eat('.'));
  reader.skipSpace();
  if (!reader.done()) reader.fail(`unexpected text at ${reader.position}`);
  if (['nth', 'first', 'last'].includes((steps[0] as LocatorStep).kind))
    reader.fail('a chain starts with a query');
  return steps;
}

function readCall(reader: Reader): LocatorStep {
  reader.skipSpace();
  const method = reader.identifier();
  reader.skipSpace();
  reader.expect('(');
  const step = readArguments(reader, method);
  reader.skipSpace();
  reader.expect(')');
  return step;
}

function readArguments(reader: Reader, method: string): LocatorStep {
  switch (method) {
    case 'getByRole': {
      const role = reader.string();
      const options = reader.optionalOptions(ROLE_OPTIONS);
      return withOptions({ kind: 'role', role }, options);
    }
    case 'getByText':
    case 'getByLabel':
    case 'getByPlaceholder': {
      const text = reader.string();
      const options = reader.optionalOptions(TEXT_OPTIONS);
      const kind = method === 'getByText' ? 'text' : method === 'getByLabel' ? 'label' : 'placeholder';
      return withOptions({ kind, text }, options);
    }
    case 'getByTestId':
      return { kind: 'testId', id: reader.string() };
    case 'locator':
      return { kind: 'css', selector: cssSelector(reader, reader.string()) };
    case 'nth':
      return { kind: 'nth', index: reader.integer() };
    case 'first':
    case 'last':
      return { kind: method };
    default:
      return reader.fail(`${method}() is not in the grammar`);
  }
}

function withOptions<T extends LocatorStep>(step: T, options: Record<string, string | boolean>): T {
  const result: Record<string, unknown> = { ...step };
  if (typeof options.name === 'string') result.name = options.name;
  if (typeof options.exact === 'boolean') result.exact = options.exact;
  return result as T;
}

/** CSS only: Playwright's own engines (`aria-ref=`, `internal:`, `xpath=`, `text=`, `>>`) are refused. */
function cssSelector(reader: Reader, selector: string): string {
  if (/^\s*[a-z-]+=|>>|internal:|aria-ref/i.test(selector) || selector.trim() === '')
    reader.fail(`locator(${JSON.stringify(selector)}) must be a plain CSS selector`);
  return selector;
}

/**
 * Canonical code of the steps (`getByRole('button', { name: 'Add', exact: true }).nth(1)`). `literal` writes each
 * string (the generated spec's own data is an expression: `'Toggle Buy milk ' + run`).
 */
export function printLocatorCode(
  steps: readonly LocatorStep[],
  literal: (text: string) => string = quote,
): string {
  return steps.map((step) => printStep(step, literal)).join('.');
}

function printStep(step: LocatorStep, quote: (text: string) => string): string {
  switch (step.kind) {
    case 'role': {
      const options: string[] = [];
      if (step.name !== undefined) options.push(`name: ${quote(step.name)}`);
      if (step.exact !== undefined) options.push(`exact: ${step.exact}`);
      return `getByRole(${quote(step.role)}${options.length ? `, { ${options.join(', ')} }` : ''})`;
    }
    case 'text':
    case 'label':
    case 'placeholder': {
      const method = { text: 'getByText', label: 'getByLabel', placeholder: 'getByPlaceholder' }[step.kind];
      return `${method}(${quote(step.text)}${step.exact === undefined ? '' : `, { exact: ${step.exact} }`})`;
    }
    case 'testId':
      return `getByTestId(${quote(step.id)})`;
    case 'css':
      return `locator(${quote(step.selector)})`;
    case 'nth':
      return `nth(${step.index})`;
    default:
      return `${step.kind}()`;
  }
}

/** A single-quoted JavaScript string literal. */
export function quote(text: string): string {
  const escaped = text
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
  return `'${escaped}'`;
}

/** Canonical form of locator code (parse, then print); throws {@link LocatorCodeError}. */
export function canonicalLocatorCode(code: string): string {
  return printLocatorCode(parseLocatorCode(code));
}

/** The real Locator for the code on this page (calls only: the code is never evaluated). */
export function buildLocator(page: Page, code: string): Locator {
  const [first, ...rest] = parseLocatorCode(code);
  let locator = applyStep(page, first as LocatorStep);
  for (const step of rest) locator = applyStep(locator, step);
  return locator;
}

function applyStep(on: Page | Locator, step: LocatorStep): Locator {
  const exact = (s: { exact?: boolean }) => (s.exact === undefined ? {} : { exact: s.exact });
  switch (step.kind) {
    case 'role':
      return on.getByRole(step.role as Parameters<Page['getByRole']>[0], {
        ...(step.name === undefined ? {} : { name: step.name }),
        ...exact(step),
      });
    case 'text':
      return on.getByText(step.text, exact(step));
    case 'label':
      return on.getByLabel(step.text, exact(step));
    case 'placeholder':
      return on.getByPlaceholder(step.text, exact(step));
    case 'testId':
      return on.getByTestId(step.id);
    case 'css':
      return on.locator(step.selector);
    case 'nth':
      return asLocator(on, step).nth(step.index);
    case 'first':
      return asLocator(on, step).first();
    case 'last':
      return asLocator(on, step).last();
  }
}

function asLocator(on: Page | Locator, step: LocatorStep): Locator {
  if (!('nth' in on)) throw new LocatorCodeError(printStep(step, quote), 'a chain starts with a query');
  return on;
}

/** A cursor over locator code with the grammar's tokens. */
class Reader {
  position = 0;
  constructor(private readonly code: string) {}

  done(): boolean {
    return this.position >= this.code.length;
  }

  fail(detail: string): never {
    throw new LocatorCodeError(this.code, detail);
  }

  skipSpace(): void {
    while (/\s/.test(this.code[this.position] ?? '')) this.position += 1;
  }

  eat(text: string): boolean {
    if (!this.code.startsWith(text, this.position)) return false;
    this.position += text.length;
    return true;
  }

  expect(text: string): void {
    if (!this.eat(text)) this.fail(`expected "${text}" at ${this.position}`);
  }

  identifier(): string {
    const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.code.slice(this.position));
    if (!match) return this.fail(`expected a method name at ${this.position}`);
    this.position += match[0].length;
    return match[0];
  }

  integer(): number {
    this.skipSpace();
    const match = /^\d{1,6}/.exec(this.code.slice(this.position));
    if (!match) return this.fail(`expected a non-negative integer at ${this.position}`);
    this.position += match[0].length;
    return Number(match[0]);
  }

  /** A single- or double-quoted string with the escapes `\\ \' \" \n \r \t`. */
  string(): string {
    this.skipSpace();
    const open = this.code[this.position];
    if (open !== "'" && open !== '"') return this.fail(`expected a string at ${this.position}`);
    let result = '';
    for (let i = this.position + 1; i < this.code.length; i += 1) {
      const char = this.code[i] as string;
      if (char === open) {
        this.position = i + 1;
        return result;
      }
      if (char === '\\') {
        const next = this.code[i + 1] ?? '';
        const mapped = { n: '\n', r: '\r', t: '\t', '\\': '\\', "'": "'", '"': '"' }[next];
        if (mapped === undefined) this.fail(`unsupported escape \\${next} at ${i}`);
        result += mapped;
        i += 1;
      } else result += char;
    }
    return this.fail('unterminated string');
  }

  /** `, { name: '…', exact: true }` with only the allowed keys, or nothing. */
  optionalOptions(allowed: readonly string[]): Record<string, string | boolean> {
    this.skipSpace();
    if (!this.eat(',')) return {};
    this.skipSpace();
    this.expect('{');
    const options: Record<string, string | boolean> = {};
    for (;;) {
      this.skipSpace();
      if (this.eat('}')) return options;
      const key = this.identifier();
      if (!allowed.includes(key))
        this.fail(`option "${key}" is not supported (allowed: ${allowed.join(', ')})`);
      this.skipSpace();
      this.expect(':');
      this.skipSpace();
      options[key] = key === 'exact' ? this.boolean() : this.string();
      this.skipSpace();
      if (!this.eat(',')) {
        this.skipSpace();
        this.expect('}');
        return options;
      }
    }
  }

  boolean(): boolean {
    if (this.eat('true')) return true;
    if (this.eat('false')) return false;
    return this.fail(`expected true or false at ${this.position}`);
  }
}
