/**
 * Replays a recorded check with playwright-core on a new page of a fresh (or, in a sweep, freshly cleared)
 * browser context: every action in order, then every expectation (each waited for until it holds or its time is
 * up, like Playwright's `expect`). No model is asked. A failure names the action or expectation that failed and
 * leaves a screenshot.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Dialog, Page } from 'playwright-core';
import { typeSlowly } from '../agent/tools/browser-actions.js';
import { NAVIGATION_TIMEOUT_MS } from '../agent/tools/browser-page.js';
import { appPathOf } from './app-path.js';
import {
  type CheckAction,
  type CheckExpectation,
  describeAction,
  describeExpectation,
  type RecordedCheck,
} from './format.js';
import { buildLocator } from './locator-code.js';
import { CountedBaselines, shortError, unmet } from './replay-expect.js';
import { ReplaySettler } from './replay-settle.js';

/** Time one action may take (the element must appear and be actionable), in ms. */
export const REPLAY_ACTION_TIMEOUT_MS = 5_000;

/** Where a replay failed. */
export interface ReplayFailure {
  /** `action` or `expectation`, and its 0-based index in the check. */
  stage: 'action' | 'expectation';
  index: number;
  /** What was being done or expected, in words (e.g. `text "Buy milk" is visible`). */
  description: string;
  /** What Playwright or the page said. */
  message: string;
}

/** Where the time of one replay went, in ms. */
export interface ReplaySplit {
  /** Readying the page: a new page, or (in a context reused by a sweep) clearing what the last replay left. */
  pageMs: number;
  /** Navigations (`goto`, `back`) until their `load` event. */
  navigationMs: number;
  /** The other actions, with Playwright's actionability waits. */
  actionsMs: number;
  /** Waiting for the requests the actions started and the frames after them. */
  settleMs: number;
  expectationsMs: number;
}

/** The outcome of one replay. */
export interface ReplayResult {
  featureId: string;
  version: number;
  ok: boolean;
  durationMs: number;
  failure?: ReplayFailure;
  /** The page when the replay failed (absolute path), when a screenshot directory was given. */
  screenshot?: string;
  /** Where the time went (absent when the replay did not start, e.g. the app did not). */
  split?: ReplaySplit;
  /** The result is a second replay on an app of the check's own, after a red one on a sweep's shared app. */
  ownApp?: boolean;
}

/** What a replay needs. */
export interface ReplayOptions {
  /** The app, e.g. `http://127.0.0.1:4100/`: `goto` paths resolve against it. */
  baseUrl: string;
  /** Where the failure screenshot goes (`<featureId>-v<version>.png`); none when omitted. */
  screenshotDir?: string;
}

/** Replays the check in a new context of the browser (closed afterwards). */
export async function replayCheck(
  browser: Browser,
  check: RecordedCheck,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const context = await browser.newContext();
  try {
    return await replayInContext(context, check, options);
  } finally {
    await context.close().catch(() => undefined);
  }
}

/** Replays the check in a new page of a context the caller owns (a fresh one: state left by others would leak in). */
export async function replayInContext(
  context: BrowserContext,
  check: RecordedCheck,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const started = performance.now();
  const page = await context.newPage();
  return replayOnPage(page, check, options, performance.now() - started);
}

/**
 * Replays the check on a new page of a fresh (or freshly cleared) context: every action in order, each settled,
 * then every expectation, each waited for until it holds or its time is up. `pageMs`: what readying the page took
 * (counted in the replay's duration).
 */
export async function replayOnPage(
  first: Page,
  check: RecordedCheck,
  options: ReplayOptions,
  pageMs = 0,
): Promise<ReplayResult> {
  const started = performance.now() - pageMs;
  const split: ReplaySplit = { pageMs, navigationMs: 0, actionsMs: 0, settleMs: 0, expectationsMs: 0 };
  const session = watchContext(first);
  const settler = new ReplaySettler();
  const baselines = new CountedBaselines(check.expectations);
  try {
    const acted = await performAll(first, check, {
      baseUrl: options.baseUrl,
      session,
      settler,
      split,
      baselines,
    });
    let failure = acted.failure;
    if (!failure) {
      await settler.catchUp(acted.page);
      failure = await judge(acted.page, check.expectations, { ...options, baselines, split });
    }
    split.settleMs = settler.waitedMs;
    const shot = failure ? await screenshot(acted.page, check, options) : undefined;
    return {
      featureId: check.featureId,
      version: check.version,
      ok: failure === undefined,
      durationMs: performance.now() - started,
      ...(failure ? { failure } : {}),
      ...(shot ? { screenshot: shot } : {}),
      split: rounded(split),
    };
  } finally {
    settler.dispose();
    session.dispose();
  }
}

/** What performing the actions needs, and where their time is added up. */
interface ActionRun {
  baseUrl: string;
  session: ReplaySession;
  settler: ReplaySettler;
  split: ReplaySplit;
  /** The numbers `relativeText` expectations count from, read after the actions their recording saw them after. */
  baselines: CountedBaselines;
}

/** Performs the actions in order; the page the replay ended on, and the first failure. */
async function performAll(
  first: Page,
  check: RecordedCheck,
  run: ActionRun,
): Promise<{ page: Page; failure?: ReplayFailure }> {
  let page = first;
  for (const [index, action] of check.actions.entries()) {
    const before = performance.now();
    const waited = run.settler.waitedMs;
    try {
      page = await perform(page, action, run.baseUrl, run.session, run.settler);
    } catch (error) {
      const failure = {
        stage: 'action' as const,
        index,
        description: describeAction(action),
        message: shortError(error),
      };
      return { page, failure };
    } finally {
      const spent = performance.now() - before - (run.settler.waitedMs - waited);
      if (action.kind === 'goto' || action.kind === 'back') run.split.navigationMs += spent;
      else run.split.actionsMs += spent;
    }
    const unread = await readBaselines(page, index, run);
    if (unread) {
      const expectation = check.expectations[unread.index] as CheckExpectation;
      const description = describeExpectation(expectation);
      return {
        page,
        failure: { stage: 'expectation', index: unread.index, description, message: unread.message },
      };
    }
  }
  return { page };
}

/** Reads the baselines due after action `index`, once the page settled (the evaluator saw it settled). */
async function readBaselines(page: Page, index: number, run: ActionRun) {
  if (!run.baselines.due(index)) return undefined;
  await run.settler.catchUp(page);
  const started = performance.now();
  try {
    return await run.baselines.afterAction(page, index);
  } finally {
    run.split.expectationsMs += performance.now() - started;
  }
}

/** The first expectation that does not hold, as a failure (none when all hold). */
async function judge(
  page: Page,
  expectations: readonly CheckExpectation[],
  run: { baseUrl: string; baselines: CountedBaselines; split: ReplaySplit },
): Promise<ReplayFailure | undefined> {
  const started = performance.now();
  try {
    for (const [index, expectation] of expectations.entries()) {
      const message = await unmet(page, expectation, run.baseUrl, run.baselines.of(index));
      if (message !== undefined) {
        return { stage: 'expectation', index, description: describeExpectation(expectation), message };
      }
    }
    return undefined;
  } finally {
    run.split.expectationsMs += performance.now() - started;
  }
}

function rounded(split: ReplaySplit): ReplaySplit {
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    pageMs: round(split.pageMs),
    navigationMs: round(split.navigationMs),
    actionsMs: round(split.actionsMs),
    settleMs: round(split.settleMs),
    expectationsMs: round(split.expectationsMs),
  };
}

/** The pages and dialogs of one replay. */
interface ReplaySession {
  /** How the next dialog is answered: as the recorded click says (else accepted, like the evaluator's). */
  nextDialog(answer: 'accept' | 'dismiss', promptText?: string): void;
  /** The replay's pages in opening order (its first page, then popups), as the evaluator's tabs were. */
  tabs(): Page[];
  /** Stops watching the context (a context reused by a sweep outlives the replay). */
  dispose(): void;
}

/**
 * Watches the pages the replay opens after its first one and answers every dialog of the context (popups
 * included), which Playwright would otherwise dismiss unasked.
 */
function watchContext(first: Page): ReplaySession {
  const context = first.context();
  const pages: Page[] = [first];
  const onPage = (page: Page) => pages.push(page);
  let plan: { answer: 'accept' | 'dismiss'; promptText?: string } | undefined;
  const onDialog = (dialog: Dialog) => {
    const { answer, promptText } = plan ?? { answer: 'accept' };
    plan = undefined;
    const answered = answer === 'accept' ? dialog.accept(promptText) : dialog.dismiss();
    void answered.catch(() => undefined);
  };
  context.on('page', onPage);
  context.on('dialog', onDialog);
  return {
    nextDialog(answer, promptText) {
      plan = { answer, ...(promptText !== undefined ? { promptText } : {}) };
    },
    tabs: () => pages.filter((page) => !page.isClosed()),
    dispose() {
      context.off('page', onPage);
      context.off('dialog', onDialog);
    },
  };
}

/** Performs one action; returns the page the check goes on in (a popup's, after a click that opens one). */
async function perform(
  page: Page,
  action: CheckAction,
  baseUrl: string,
  session: ReplaySession,
  settler: ReplaySettler,
): Promise<Page> {
  const timeout = REPLAY_ACTION_TIMEOUT_MS;
  const target = (code: string) => buildLocator(page, code);
  const act = (run: () => Promise<unknown>) => settler.act(page, run);
  switch (action.kind) {
    case 'goto':
      // Leaving the page: what the last action started must not be cut off.
      await settler.catchUp(page);
      await act(() =>
        page.goto(onApp(action.path, baseUrl), { waitUntil: 'load', timeout: NAVIGATION_TIMEOUT_MS }),
      );
      return page;
    case 'back':
      await settler.catchUp(page);
      await act(() => page.goBack({ timeout }));
      return page;
    case 'click':
      if (action.dialog) session.nextDialog(action.dialog, action.promptText);
      return click(page, action, timeout, settler);
    case 'fill':
      await act(() => target(action.target).fill(action.text, { timeout }));
      return page;
    case 'type':
      await act(() => typeSlowly(target(action.target), action.text));
      return page;
    case 'press':
      await act(() =>
        action.target
          ? target(action.target).press(action.key, { timeout })
          : page.keyboard.press(action.key),
      );
      return page;
    case 'select':
      await act(() => target(action.target).selectOption(action.values, { timeout }));
      return page;
    case 'hover':
      await act(() => target(action.target).hover({ timeout }));
      return page;
    case 'check':
      await act(() => target(action.target).setChecked(action.checked, { timeout }));
      return page;
    case 'drag':
      await act(() => target(action.target).dragTo(target(action.to), { timeout }));
      return page;
    case 'resize':
      await act(() => page.setViewportSize({ width: action.width, height: action.height }));
      return page;
    case 'tab':
      await settler.catchUp(page);
      return switchTab(session.tabs(), action.index);
  }
}

/** The replay's tab at `index`, brought to front. */
async function switchTab(tabs: Page[], index: number): Promise<Page> {
  const tab = tabs[index];
  if (!tab) throw new Error(`there is no tab ${index} (${tabs.length} open)`);
  await tab.bringToFront();
  return tab;
}

async function click(
  page: Page,
  action: Extract<CheckAction, { kind: 'click' }>,
  timeout: number,
  settler: ReplaySettler,
): Promise<Page> {
  const element = buildLocator(page, action.target);
  if (!action.popup) {
    await settler.act(page, () => element.click({ timeout }));
    return page;
  }
  const [popup] = await Promise.all([page.waitForEvent('popup', { timeout }), element.click({ timeout })]);
  await popup.waitForLoadState('load', { timeout: NAVIGATION_TIMEOUT_MS });
  return popup;
}

/** The absolute URL of a check's path, re-checked after resolution: a path that leaves the app is never opened. */
function onApp(appPath: string, baseUrl: string): string {
  const url = new URL(appPath, baseUrl);
  if (appPathOf(appPath, baseUrl) === null || url.origin !== new URL(baseUrl).origin) {
    throw new Error(
      `${JSON.stringify(appPath)} is not a path on the app ${baseUrl}; a check opens only the app's pages`,
    );
  }
  return url.href;
}

async function screenshot(
  page: Page,
  check: RecordedCheck,
  options: ReplayOptions,
): Promise<string | undefined> {
  if (!options.screenshotDir) return undefined;
  try {
    await mkdir(options.screenshotDir, { recursive: true });
    const file = path.join(options.screenshotDir, `${check.featureId}-v${check.version}.png`);
    await writeFile(file, await page.screenshot({ timeout: REPLAY_ACTION_TIMEOUT_MS }));
    return file;
  } catch {
    return undefined; // a crashed page has no picture; the failure message still says what happened
  }
}
