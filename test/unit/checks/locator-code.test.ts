import { describe, expect, it } from 'vitest';
import { generateSpec } from '../../../checks/codegen.js';
import { RecordedCheck } from '../../../checks/format.js';
import {
  canonicalLocatorCode,
  LocatorCodeError,
  parseLocatorCode,
  printLocatorCode,
} from '../../../checks/locator-code.js';

describe('locator code grammar', () => {
  it('parses the supported calls and prints them back canonically', () => {
    const cases: Array<[string, string]> = [
      ["getByRole('button', { name: 'Add' })", "getByRole('button', { name: 'Add' })"],
      [
        'page.getByRole("checkbox", {name: "Toggle it\'s", exact: true})',
        "getByRole('checkbox', { name: 'Toggle it\\'s', exact: true })",
      ],
      ["getByText('Buy milk', { exact: false })", "getByText('Buy milk', { exact: false })"],
      ["getByLabel('New todo')", "getByLabel('New todo')"],
      ["getByTestId('row-1')", "getByTestId('row-1')"],
      ["getByPlaceholder('What needs to be done?')", "getByPlaceholder('What needs to be done?')"],
      ["locator('#todo-list li').nth(2)", "locator('#todo-list li').nth(2)"],
      [
        "getByRole('list', { name: 'Todos' }).getByRole('listitem').first()",
        "getByRole('list', { name: 'Todos' }).getByRole('listitem').first()",
      ],
      ["getByText('a\\nb\\\\c').last()", "getByText('a\\nb\\\\c').last()"],
    ];
    for (const [input, canonical] of cases) expect(canonicalLocatorCode(input)).toBe(canonical);
  });

  it('round-trips what it prints', () => {
    const steps = parseLocatorCode(
      "getByRole('button', { name: 'Say \"hi\" \\'now\\'', exact: true }).nth(0)",
    );
    expect(parseLocatorCode(printLocatorCode(steps))).toEqual(steps);
  });

  it('refuses snapshot refs, other engines, unknown methods, options and code', () => {
    const refused = [
      "getByRef('e12')",
      "locator('aria-ref=e12')",
      "locator('internal:role=button')",
      "locator('xpath=//button')",
      "locator('div >> text=x')",
      "getByRole('button', { name: 'x', pressed: true })",
      "getByRole('button', { name: `x` })",
      "getByRole('button', { name: 'x' + y })",
      "getByText('x'); process.exit(1)",
      'nth(1)',
      "getByRole('button').nth(-1)",
      "getByText('unterminated)",
      "getByText('\\u0041')",
      '',
    ];
    for (const code of refused) expect(() => parseLocatorCode(code), code).toThrow(LocatorCodeError);
  });
});

describe('RecordedCheck and the generated spec', () => {
  const check = RecordedCheck.parse({
    featureId: 'F-001',
    version: 2,
    recordedAt: '2026-01-01T00:00:00.000Z',
    origin: { runId: 'r-1', session: 4, reason: 'evaluate' },
    actions: [
      { kind: 'goto', path: '/' },
      { kind: 'fill', target: "getByRole('textbox', {name:'New todo'})", text: "It's `$(done)`" },
      { kind: 'press', key: 'Enter', target: "getByRole('textbox', { name: 'New todo' })" },
      { kind: 'click', target: "getByRole('button', { name: 'Delete' })", dialog: 'accept' },
      { kind: 'goto', path: '/' },
    ],
    expectations: [
      { kind: 'text', text: "It's `$(done)`" },
      { kind: 'text', text: 'Gone', visible: false },
      { kind: 'url', path: '/' },
      { kind: 'checked', target: "getByRole('checkbox', { name: 'Toggle x' })", checked: true },
    ],
  });

  it('stores locators canonically and fills defaults', () => {
    expect(check.actions[1]).toMatchObject({ target: "getByRole('textbox', { name: 'New todo' })" });
    expect(check.expectations[0]).toEqual({ kind: 'text', text: "It's `$(done)`", visible: true });
  });

  it('refuses a check with a ref locator or without expectations, naming the field', () => {
    const bad = RecordedCheck.safeParse({ ...check, actions: [{ kind: 'click', target: "getByRef('e3')" }] });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain('getByRef() is not in the grammar');
    expect(RecordedCheck.safeParse({ ...check, expectations: [] }).success).toBe(false);
  });

  it("writes recorded text only as quoted string literals, the own data with the run's suffix", () => {
    const spec = generateSpec(check, 'Add a todo\nsecond line');
    expect(spec).toContain("import { expect, settled, test } from './nightshift-fixtures';");
    expect(spec).toContain('const run = runSuffix();');
    expect(spec).toContain(".fill('It\\'s `$(done)` ' + run);");
    expect(spec).toContain(
      "nextDialog = { answer: 'accept' };\n  await page.getByRole('button', { name: 'Delete' }).click();",
    );
    expect(spec).toContain("await settled(page);\n  await page.goto('/');");
    expect(spec).toContain(
      "await expect(page.getByText('It\\'s `$(done)` ' + run).filter({ visible: true }).first())",
    );
    expect(spec).toContain("await expect(page.getByText('Gone').filter({ visible: true })).toHaveCount(0);");
    expect(spec).toContain('.toBeChecked();');
    // "Delete" names none of the check's own data: it may act on any check's, so the check runs alone.
    expect(spec).toContain("test('F-001: Add a todo second line', { tag: '@alone' }, async ({ page }) => {");
  });

  it('reads a counted number after the action it was first seen after, and expects the change', () => {
    const TOGGLE = "getByRole('checkbox', { name: 'Toggle Book dentist', exact: true })";
    const counted = RecordedCheck.parse({
      ...check,
      actions: [
        { kind: 'goto', path: '/' },
        { kind: 'fill', target: "getByRole('textbox', { name: 'New todo' })", text: 'Book dentist' },
        { kind: 'press', key: 'Enter', target: "getByRole('textbox', { name: 'New todo' })" },
        { kind: 'click', target: TOGGLE },
      ],
      expectations: [
        { kind: 'relativeText', text: '0 items left', baseline: { afterAction: 0, text: '0 items left' } },
        {
          kind: 'relativeText',
          text: '1 item left\u2028process.exit(1)',
          baseline: { afterAction: 2, text: '3 items left' },
        },
        { kind: 'checked', target: TOGGLE, checked: true },
      ],
    });
    const spec = generateSpec(counted, 'Remaining count');
    expect(spec).toContain("test('F-001: Remaining count', { tag: '@alone' }, async ({ page }) => {");
    expect(spec).toContain(
      "await page.goto('/');\n  await settled(page);\n  // Recorded as \"0 items left\" here; the check counts from what the app shows now.\n  const counted0 = await numbersShown(page, new RegExp('(?<!\\\\d)(\\\\d+)(?!\\\\d)\\\\s+item(?:s|es)?\\\\s+left', 'i'));",
    );
    expect(spec).toContain(
      "new RegExp('(?<!\\\\d)' + counted0[0] + '(?!\\\\d)\\\\s+item(?:s|es)?\\\\s+left', 'i')",
    );
    expect(spec).toContain("new RegExp('(?<!\\\\d)' + (counted1[0] - 2) + '(?!\\\\d)");
    expect(spec).toContain("{ name: 'Toggle Book dentist ' + run, exact: true }");
    // A line terminator in recorded text never ends a comment: nothing recorded becomes code.
    expect(spec).not.toContain('\u2028');
    expect(
      spec
        .split('\n')
        .filter((line) => line.includes('process.exit(1)'))
        .every((line) => /^\s*(\/\/|await expect)/.test(line)),
    ).toBe(true);
  });

  it('runs a check side by side when every control it uses names its own data or submits what it typed', () => {
    const own = RecordedCheck.parse({
      ...check,
      actions: [
        { kind: 'goto', path: '/' },
        { kind: 'fill', target: "getByRole('textbox', { name: 'New todo' })", text: 'Walk the dog' },
        { kind: 'click', target: "getByRole('button', { name: 'Add', exact: true })" },
        { kind: 'click', target: "getByRole('link', { name: 'Settings' })" },
        { kind: 'click', target: "getByRole('button', { name: 'Delete Walk the dog', exact: true })" },
      ],
      expectations: [{ kind: 'text', text: 'Walk the dog', visible: false }],
    });
    const spec = generateSpec(own, 'Delete a todo');
    expect(spec).toContain("test('F-001: Delete a todo', async ({ page }) => {");
    expect(spec).not.toContain('@alone');
  });
});
