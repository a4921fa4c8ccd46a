/**
 * Written by nightshift beside the recorded checks in e2e/ (regenerated with them; edit the checks, not this).
 * Every check runs against the one app of playwright.config.ts's webServer, so checks take turns on it: a check
 * tagged `@alone` (it counts or acts on what the whole app holds, e.g. "N items left" or "Clear completed") waits
 * until no other check runs and keeps the others waiting until it is done; the other checks, each with data of
 * its own, run side by side. The turns are files under the run's output folder, so they hold across workers.
 * Time spent waiting for a turn does not count against the check's timeout.
 * After each action a check waits for the requests it started, as nightshift's replays do (`settled`): a person is
 * slower than a test runner, and an app that clears a form when its save answers would otherwise eat the next input.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type BrowserContext, test as base, expect, type Page, type Request } from '@playwright/test';

/** How often a waiting check looks again, in ms. */
const POLL_MS = 50;

/** Longest a check waits for the requests of one action, in ms. */
const SETTLE_MAX_MS = 3_000;

/** The requests in flight in each check's browser context (event streams left out: they never finish). */
const inFlight = new WeakMap<BrowserContext, Set<Request>>();

/** `test` of @playwright/test with the app's turns taken around every check and its requests watched. */
export const test = base.extend<{ appTurn: undefined; requestsWatched: undefined }>({
  requestsWatched: [
    async ({ context }, use) => {
      const requests = new Set<Request>();
      inFlight.set(context, requests);
      context.on('request', (request) => {
        if (request.resourceType() !== 'eventsource') requests.add(request);
      });
      context.on('requestfinished', (request) => requests.delete(request));
      context.on('requestfailed', (request) => requests.delete(request));
      await use(undefined);
    },
    { auto: true },
  ],
  appTurn: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
    async ({}, use, testInfo) => {
      const dir = path.join(testInfo.project.outputDir, '.nightshift-app-turns');
      const started = Date.now();
      const alone = testInfo.tags.includes('@alone');
      // No timeout while waiting (the check holding the app is bounded by its own), so a check behind two @alone
      // checks on a slow machine is not failed before it starts; then its own timeout from here.
      const own = testInfo.timeout;
      testInfo.setTimeout(0);
      const release = alone ? await takeAlone(dir) : await takeShared(dir, testInfo.testId);
      testInfo.setTimeout(own === 0 ? 0 : own + (Date.now() - started));
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

/**
 * Waits until the requests the page's actions started have finished and the page rendered a frame after them
 * (again while a finished request started the next one: a save, then the list), at most 3 s.
 */
export async function settled(page: Page): Promise<void> {
  const requests = inFlight.get(page.context()) ?? new Set<Request>();
  const deadline = Date.now() + SETTLE_MAX_MS;
  for (;;) {
    // A frame first: a request the action started reaches this process before the frame's answer does.
    await page
      .evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => resolve())))
      .catch(() => undefined);
    if (requests.size === 0 || Date.now() >= deadline) return;
    while (requests.size > 0 && Date.now() < deadline) await sleep(10);
  }
}

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

function sleep(ms = POLL_MS): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
