/**
 * Written by nightshift beside the recorded checks in e2e/ (regenerated with them; edit the checks, not this).
 * Every check runs against the one app of playwright.config.ts's webServer, so checks take turns on it: a check
 * tagged `@alone` (it counts or acts on what the whole app holds, e.g. "N items left" or "Clear completed") waits
 * until no other check runs and keeps the others waiting until it is done; the other checks, each with data of
 * its own, run side by side. The turns are files under the run's output folder, so they hold across workers.
 * Time spent waiting for a turn is added to the check's timeout.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test as base, expect } from '@playwright/test';

/** How often a waiting check looks again, in ms. */
const POLL_MS = 50;

/** `test` of @playwright/test with the app's turns taken around every check. */
export const test = base.extend<{ appTurn: undefined }>({
  appTurn: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
    async ({}, use, testInfo) => {
      const dir = path.join(testInfo.project.outputDir, '.nightshift-app-turns');
      const started = Date.now();
      const alone = testInfo.tags.includes('@alone');
      const release = alone ? await takeAlone(dir) : await takeShared(dir, testInfo.testId);
      testInfo.setTimeout(testInfo.timeout + (Date.now() - started));
      try {
        await use(undefined);
      } finally {
        await release();
      }
    },
    { auto: true },
  ],
});

export { expect };

/** A turn beside other shared checks: none while an `@alone` check holds or waits for the app. */
async function takeShared(dir: string, testId: string): Promise<() => Promise<void>> {
  const running = path.join(dir, 'shared');
  await mkdir(running, { recursive: true });
  const mine = path.join(running, `${process.pid}-${testId.replace(/[^\w-]/g, '_')}`);
  for (;;) {
    while (await aloneHeld(dir)) await sleep();
    await writeFile(mine, '');
    // Checked again after announcing: an @alone check that came in between goes first.
    if (!(await aloneHeld(dir))) return () => rm(mine, { force: true });
    await rm(mine, { force: true });
  }
}

/** The app for this check alone: the `alone` folder (made atomically, with its owner), then no shared check left. */
async function takeAlone(dir: string): Promise<() => Promise<void>> {
  const lock = path.join(dir, 'alone');
  const claim = path.join(dir, `claim-${process.pid}-${Date.now()}`);
  await mkdir(claim, { recursive: true });
  await writeFile(path.join(claim, 'owner'), String(process.pid));
  for (;;) {
    try {
      await rename(claim, lock);
      break;
    } catch {
      // Held by another check (rename onto a folder with an owner fails): wait, unless its worker is gone.
      if (!(await aloneHeld(dir))) await removeLock(dir);
      await sleep();
    }
  }
  for (;;) {
    const names = await readdir(path.join(dir, 'shared')).catch(() => [] as string[]);
    if (!names.some((name) => alive(Number(name.split('-')[0])))) break;
    await sleep();
  }
  return () => removeLock(dir);
}

/** Moves the lock away in one step, then deletes it: the `alone` folder is never seen empty (a claim would take it). */
async function removeLock(dir: string): Promise<void> {
  const gone = path.join(dir, `gone-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const moved = await rename(path.join(dir, 'alone'), gone).then(
    () => true,
    () => false,
  );
  if (moved) await rm(gone, { recursive: true, force: true });
}

/** Whether an `@alone` check holds the app (a lock whose worker process is gone does not count). */
async function aloneHeld(dir: string): Promise<boolean> {
  const owner = await readFile(path.join(dir, 'alone', 'owner'), 'utf8').catch(() => undefined);
  return owner !== undefined && alive(Number(owner));
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleep(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, POLL_MS));
}
