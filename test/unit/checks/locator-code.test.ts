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

  it('writes recorded text only as quoted string literals', () => {
    const spec = generateSpec(check, 'Add a todo\nsecond line');
    expect(spec).toContain("test('F-001: Add a todo second line', async ({ page }) => {");
    expect(spec).toContain(".fill('It\\'s `$(done)`');");
    expect(spec).toContain(
      "nextDialog = { answer: 'accept' };\n  await page.getByRole('button', { name: 'Delete' }).click();",
    );
    expect(spec).toContain("await settled(page);\n  await page.goto('/');");
    expect(spec).toContain("await expect(page.getByText('Gone').filter({ visible: true })).toHaveCount(0);");
    expect(spec).toContain('.toBeChecked();');
  });
});
