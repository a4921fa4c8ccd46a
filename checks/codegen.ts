/**
 * A recorded check as a Playwright test file (`e2e/<id>.spec.ts`) a person can read and run with
 * `npx playwright test` once `nightshift checks export` has written the config. Every string in the file
 * comes through `quote` and every locator through the grammar's printer: no recorded text becomes code.
 */
import { isAppPath } from './app-path.js';
import type { CheckAction, CheckExpectation, RecordedCheck } from './format.js';
import { parseLocatorCode, printLocatorCode, quote } from './locator-code.js';

/** Folder of the generated specs in the workspace. */
export const SPEC_DIR = 'e2e';

/** Workspace-relative path of a feature's spec. */
export function specPath(featureId: string): string {
  return `${SPEC_DIR}/${featureId}.spec.ts`;
}

/** The spec file's text for this check; `title` is the feature's description (one line is kept). */
export function generateSpec(check: RecordedCheck, title: string): string {
  // The check goes on in another page after a popup or a tab switch.
  const popup = check.actions.some(
    (action) => (action.kind === 'click' && action.popup) || action.kind === 'tab',
  );
  const body: string[] = [];
  check.actions.forEach((action, index) => {
    body.push(...actionLines(action, index));
  });
  for (const expectation of check.expectations) body.push(expectationLine(expectation));
  const name = `${check.featureId}: ${oneLine(title)}`;
  return [
    `// Recorded by nightshift from the evaluator's pass of ${check.featureId} (run ${oneLine(check.origin.runId)}, session ${check.origin.session}), check version ${check.version}.`,
    '// The harness replays .nightshift/checks/ itself; this file is the same check for `npx playwright test`',
    '// (run `nightshift checks export` once for playwright.config.ts). Regenerated when the check is re-recorded.',
    "import { expect, type Page, test } from '@playwright/test';",
    '',
    '/** Lets the requests an action started finish (a reload right after a save would otherwise lose it). */',
    'async function settled(page: Page): Promise<void> {',
    "  await page.waitForLoadState('networkidle').catch(() => undefined);",
    '}',
    '',
    `test(${quote(name)}, async ({ page${popup ? ': firstPage' : ''} }) => {`,
    ...(popup ? ['  let page = firstPage;'] : []),
    ...DIALOG_LINES.map((line) => `  ${line}`),
    ...body.map((line) => `  ${line}`),
    '});',
    '',
  ].join('\n');
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

function actionLines(action: CheckAction, index: number): string[] {
  const on = (code: string) => `page.${printLocatorCode(parseLocatorCode(code))}`;
  switch (action.kind) {
    case 'goto':
      return [
        ...(index > 0 ? ['await settled(page);'] : []),
        `await page.goto(${quote(exportedPath(action.path))});`,
      ];
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

function expectationLine(expectation: CheckExpectation): string {
  const on = (code: string) => `page.${printLocatorCode(parseLocatorCode(code))}`;
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
  }
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
