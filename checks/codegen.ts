/**
 * A recorded check as a Playwright test file (`e2e/<id>.spec.ts`) a person can read and run with
 * `npx playwright test` once `nightshift checks export` has written the config. Every string in the file
 * comes through `quote` and every locator through the grammar's printer: no recorded text becomes code.
 */
import { isAppPath } from './app-path.js';
import type { CheckAction, CheckExpectation, RecordedCheck } from './format.js';
import { parseLocatorCode, printLocatorCode, quote } from './locator-code.js';
import { numberPattern } from './relative-text.js';
import { ownTexts, withReplayData } from './replay-data.js';

/** Folder of the generated specs in the workspace. */
export const SPEC_DIR = 'e2e';

/** Workspace-relative path of a feature's spec. */
export function specPath(featureId: string): string {
  return `${SPEC_DIR}/${featureId}.spec.ts`;
}

/** Stands for the run's own suffix in the check's texts while the spec is generated (a private-use character). */
const RUN_MARK = '\u{E000}';

/** The spec file's text for this check; `title` is the feature's description (one line is kept). */
export function generateSpec(check: RecordedCheck, title: string): string {
  // Data of the run's own: the texts the check types and looks for again get a suffix made when the spec runs.
  const ownData = !JSON.stringify(check).includes(RUN_MARK) && ownTexts(check).length > 0;
  const replayed = ownData ? withReplayData(check, RUN_MARK) : check;
  // The check goes on in another page after a popup or a tab switch.
  const popup = check.actions.some(
    (action) => (action.kind === 'click' && action.popup) || action.kind === 'tab',
  );
  const counted = replayed.expectations.some((expectation) => expectation.kind === 'relativeText');
  const body: string[] = [];
  replayed.actions.forEach((action, index) => {
    body.push(...actionLines(action, index, runLiteral));
    // As the harness's replay: the requests the action started finish before the next action or reading.
    if (action.kind !== 'resize') body.push('await settled(page);');
    body.push(...baselineLines(replayed.expectations, index));
  });
  replayed.expectations.forEach((expectation, index) => {
    body.push(expectationLine(expectation, index, runLiteral));
  });
  const name = `${check.featureId}: ${oneLine(title)}`;
  const alone = runsAlone(check);
  return [
    `// Recorded by nightshift from the evaluator's pass of ${check.featureId} (run ${oneLine(check.origin.runId)}, session ${check.origin.session}), check version ${check.version}.`,
    '// The harness replays .nightshift/checks/ itself; this file is the same check for `npx playwright test`',
    '// (run `nightshift checks export` once for playwright.config.ts). Regenerated when the check is re-recorded.',
    "import type { Page } from '@playwright/test';",
    `import { expect, settled, test } from './${FIXTURES_MODULE}';`,
    '',
    ...(ownData ? RUN_SUFFIX_LINES : []),
    ...(counted ? NUMBERS_SHOWN_LINES : []),
    ...(alone ? [comment(`Runs alone on the app: ${alone}.`)] : []),
    `test(${quote(name)}, ${alone ? "{ tag: '@alone' }, " : ''}async ({ page${popup ? ': firstPage' : ''} }) => {`,
    ...(ownData ? OWN_DATA_LINES : []),
    ...(popup ? ['  let page = firstPage;'] : []),
    ...DIALOG_LINES.map((line) => `  ${line}`),
    ...body.map((line) => `  ${line}`),
    '});',
    '',
  ].join('\n');
}

/** The module of the exported suite that takes the app's turns (`checks/exported/`), without its extension. */
export const FIXTURES_MODULE = 'nightshift-fixtures';

const OWN_DATA_LINES = [
  '  // The texts the check types and looks for again carry a suffix of this run: no other check or run has them.',
  '  const run = runSuffix();',
];

const RUN_SUFFIX_LINES = [
  "/** Eight letters and digits of this run's own. */",
  'function runSuffix(): string {',
  "  return Array.from({ length: 8 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 36)]).join('');",
  '}',
  '',
];

const NUMBERS_SHOWN_LINES = [
  '/** The numbers in the first visible text of the pattern: what the check counts from. */',
  'async function numbersShown(page: Page, pattern: RegExp): Promise<number[]> {',
  '  const shown = page.getByText(pattern).filter({ visible: true }).first();',
  '  await expect(shown).toBeVisible();',
  "  const text = ((await shown.textContent()) ?? '').replace(/\\s+/g, ' ');",
  '  return (pattern.exec(text) ?? []).slice(1).map(Number);',
  '}',
  '',
];

/** A string literal, with the run's suffix where the check's own data carries it (`'Buy milk ' + run`). */
function runLiteral(text: string): string {
  if (!text.includes(RUN_MARK)) return quote(text);
  const parts = text.split(RUN_MARK);
  const pieces: string[] = [];
  parts.forEach((part, index) => {
    if (part !== '') pieces.push(quote(part));
    if (index < parts.length - 1) pieces.push('run');
  });
  return pieces.join(' + ');
}

/** Dialogs are accepted unless the click before says otherwise, as in the evaluator's browser. */
const DIALOG_LINES = [
  "let nextDialog: { answer: 'accept' | 'dismiss'; promptText?: string } = { answer: 'accept' };",
  "page.context().on('dialog', (dialog) => {",
  '  const { answer, promptText } = nextDialog;',
  "  nextDialog = { answer: 'accept' };",
  "  void (answer === 'accept' ? dialog.accept(promptText) : dialog.dismiss()).catch(() => undefined);",
  '});',
];

type Literal = (text: string) => string;

function actionLines(action: CheckAction, index: number, quote: Literal): string[] {
  const on = (code: string) => `page.${printLocatorCode(parseLocatorCode(code), quote)}`;
  switch (action.kind) {
    case 'goto':
      return [`await page.goto(${quote(exportedPath(action.path))});`];
    case 'click': {
      const lines: string[] = [];
      if (action.dialog) {
        const text = action.promptText !== undefined ? `, promptText: ${quote(action.promptText)}` : '';
        lines.push(`nextDialog = { answer: ${quote(action.dialog)}${text} };`);
      }
      if (action.popup) {
        lines.push(`const popup${index} = page.waitForEvent('popup');`);
        lines.push(`await ${on(action.target)}.click();`);
        lines.push(`page = await popup${index};`);
      } else lines.push(`await ${on(action.target)}.click();`);
      return lines;
    }
    case 'fill':
      return [`await ${on(action.target)}.fill(${quote(action.text)});`];
    case 'type':
      return [
        `await ${on(action.target)}.selectText();`,
        `await ${on(action.target)}.pressSequentially(${quote(action.text)});`,
      ];
    case 'press':
      return [
        action.target
          ? `await ${on(action.target)}.press(${quote(action.key)});`
          : `await page.keyboard.press(${quote(action.key)});`,
      ];
    case 'select':
      return [`await ${on(action.target)}.selectOption([${action.values.map(quote).join(', ')}]);`];
    case 'hover':
      return [`await ${on(action.target)}.hover();`];
    case 'check':
      return [`await ${on(action.target)}.setChecked(${action.checked});`];
    case 'back':
      return ['await page.goBack();'];
    case 'drag':
      return [`await ${on(action.target)}.dragTo(${on(action.to)});`];
    case 'resize':
      return [`await page.setViewportSize({ width: ${action.width}, height: ${action.height} });`];
    case 'tab':
      return [`page = page.context().pages()[${action.index}];`, 'await page.bringToFront();'];
  }
}

/** A goto's path as the spec may name it: only a path on the app (a `//host` would leave it under baseURL). */
function exportedPath(path: string): string {
  if (!isAppPath(path))
    throw new Error(`${JSON.stringify(path)} is not a path on the app; it is not exported`);
  return path;
}

/** Reads, after action `index`, the numbers of the `relativeText` expectations that count from there. */
function baselineLines(expectations: readonly CheckExpectation[], index: number): string[] {
  const lines: string[] = [];
  expectations.forEach((expectation, position) => {
    if (expectation.kind !== 'relativeText' || expectation.baseline.afterAction !== index) return;
    const pattern = numberPattern(expectation.text);
    if (!pattern) return;
    lines.push(
      comment(
        `Recorded as ${JSON.stringify(expectation.baseline.text)} here; the check counts from what the app shows now.`,
      ),
      `const counted${position} = await numbersShown(page, new RegExp(${quote(pattern.source)}, 'i'));`,
    );
  });
  return lines;
}

function expectationLine(expectation: CheckExpectation, position: number, quote: Literal): string {
  const on = (code: string) => `page.${printLocatorCode(parseLocatorCode(code), quote)}`;
  switch (expectation.kind) {
    case 'text': {
      const text = `page.getByText(${quote(expectation.text)}).filter({ visible: true })`;
      return expectation.visible
        ? `await expect(${text}.first()).toBeVisible();`
        : `await expect(${text}).toHaveCount(0);`;
    }
    case 'url':
      return `await expect(page).toHaveURL((url) => url.pathname + url.search + url.hash === ${quote(expectation.path)});`;
    case 'title':
      return `await expect(page).toHaveTitle(${quote(expectation.title)});`;
    case 'value':
      return `await expect(${on(expectation.target)}).toHaveValue(${quote(expectation.value)});`;
    case 'checked':
      return `await expect(${on(expectation.target)}).${expectation.checked ? 'toBeChecked()' : 'not.toBeChecked()'};`;
    case 'count':
      return `await expect(${on(expectation.target)}).toHaveCount(${expectation.count});`;
    case 'relativeText':
      return relativeTextLine(expectation, position);
  }
}

/** `"1 item left"` as the number read at the baseline plus what the recording's actions changed. */
function relativeTextLine(
  expectation: Extract<CheckExpectation, { kind: 'relativeText' }>,
  position: number,
): string {
  const pattern = numberPattern(expectation.text);
  const baseline = numberPattern(expectation.baseline.text);
  if (!pattern || !baseline) throw new Error(`no number in ${JSON.stringify(expectation.text)}`);
  const pieces: string[] = [];
  pattern.between.forEach((piece, index) => {
    if (index > 0) {
      const change = (pattern.numbers[index - 1] ?? 0) - (baseline.numbers[index - 1] ?? 0);
      const counted = `counted${position}[${index - 1}]`;
      const value = change === 0 ? counted : `(${counted} ${change > 0 ? '+' : '-'} ${Math.abs(change)})`;
      pieces.push(quote('(?<!\\d)'), value, quote(`(?!\\d)${piece}`));
    } else if (piece !== '') pieces.push(quote(piece));
  });
  const recorded = comment(
    `${JSON.stringify(expectation.text)} when recorded, after ${JSON.stringify(expectation.baseline.text)}.`,
  );
  return `${recorded}\n  await expect(page.getByText(new RegExp(${pieces.join(' + ')}, 'i')).filter({ visible: true }).first()).toBeVisible();`;
}

/**
 * Why the check must have the app to itself when checks run side by side (`@alone`), or undefined: it counts
 * what the whole app holds (a `relativeText` expectation), or it clicks a button or checkbox that names none of
 * its own data other than to submit what it just typed ("Clear completed", a filter, "Log out"), which may act
 * on every check's data.
 */
export function runsAlone(check: RecordedCheck): string | undefined {
  const counted = check.expectations.find((expectation) => expectation.kind === 'relativeText');
  if (counted) return `it counts what the whole app holds (${JSON.stringify(counted.text)})`;
  const own = ownTexts(check);
  for (const [index, action] of check.actions.entries()) {
    if (action.kind !== 'click' && action.kind !== 'check' && action.kind !== 'drag') continue;
    const previous = check.actions[index - 1];
    const submits = previous?.kind === 'fill' || previous?.kind === 'type';
    const steps = parseLocatorCode(action.target);
    const navigates = steps.some((step) => step.kind === 'role' && NAVIGATION_ROLES.has(step.role));
    const named = steps.flatMap((step) =>
      step.kind === 'role' ? [step.name ?? ''] : 'text' in step ? [step.text] : [],
    );
    const names = own.some((text) => named.some((name) => name.includes(text)));
    if (!submits && !navigates && !names)
      return `it uses ${action.target}, which may act on every check's data`;
  }
  return undefined;
}

/** Roles whose click only goes somewhere (the page, not the app's data). */
const NAVIGATION_ROLES = new Set(['link', 'tab']);

/** A line comment: recorded text in it cannot end it (every line terminator JavaScript knows becomes a space). */
function comment(text: string): string {
  return `// ${text.replace(/[\n\r\u2028\u2029]/g, ' ')}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** `playwright.config.ts` for the exported suite: the app started by `init.sh` on a port, Chromium. */
export function playwrightConfig(port = 3000): string {
  return [
    '// Written by `nightshift checks export`: runs the recorded checks in e2e/ against the app started by init.sh.',
    "// Careful: webServer runs `bash init.sh` on this machine, outside nightshift's box, as you (your files, keys and",
    '// network). Read init.sh first; `nightshift checks run` replays the same checks with init.sh and the app boxed.',
    "import { defineConfig } from '@playwright/test';",
    '',
    `const port = Number(process.env.PORT ?? ${port});`,
    '',
    'export default defineConfig({',
    `  testDir: './${SPEC_DIR}',`,
    '  use: {',
    "    baseURL: 'http://127.0.0.1:' + port + '/',",
    '    // A system Chromium instead of a downloaded one: CHROMIUM_PATH=/usr/bin/chromium npx playwright test',
    '    ...(process.env.CHROMIUM_PATH ? { launchOptions: { executablePath: process.env.CHROMIUM_PATH } } : {}),',
    '  },',
    '  webServer: {',
    "    command: 'PORT=' + port + ' bash init.sh',",
    "    url: 'http://127.0.0.1:' + port + '/',",
    '    reuseExistingServer: !process.env.CI,',
    '  },',
    '});',
    '',
  ].join('\n');
}
