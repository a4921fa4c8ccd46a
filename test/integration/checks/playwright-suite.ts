import { execFile } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { chromiumExecutable } from '../../../workers/chromium-path.js';
import { freePort } from '../browser/todo-app.js';

/** The system Chromium the exported suite is told to use (never a downloaded one). */
export const CHROMIUM = chromiumExecutable();
const REPO = path.resolve(import.meta.dirname, '../../..');

/** What one `npx playwright test` printed and how it exited. */
export interface SuiteRun {
  code: number;
  output: string;
  /** `N passed`, `N failed` as the line reporter summed them up. */
  passed: number;
  failed: number;
}

/**
 * Gives an app folder the harness's node_modules (they hold `@playwright/test`, pinned to playwright-core), as
 * `npm install --save-dev @playwright/test` would, without a registry.
 */
export async function linkPlaywright(dir: string): Promise<void> {
  await symlink(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
}

/**
 * Runs the real `@playwright/test` runner in the folder (`npx playwright test …`), as CI would: the config's
 * webServer starts `init.sh` on a free port, system Chromium through CHROMIUM_PATH.
 */
export async function runPlaywrightTest(dir: string, args: string[] = []): Promise<SuiteRun> {
  const port = await freePort();
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      path.join(REPO, 'node_modules/.bin/playwright'),
      ['test', '--reporter=line', ...args],
      {
        cwd: dir,
        env: { ...process.env, CI: '1', PORT: String(port), CHROMIUM_PATH: CHROMIUM },
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(result.output)?.[1] ?? 0);
  return { ...result, passed: count('passed'), failed: count('failed') };
}
