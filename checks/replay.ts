/**
 * Replays a recorded check with playwright-core in a fresh browser context: every action in order, then every
 * expectation (each retried until it holds or its time is up, like Playwright's `expect`). No model is asked.
 * A failure names the action or expectation that failed and leaves a screenshot.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { typeSlowly } from '../agent/tools/browser-actions.js';
import { actAndSettle, NAVIGATION_TIMEOUT_MS } from '../agent/tools/browser-page.js';
import {
  type CheckAction,
  type CheckExpectation,
  describeExpectation,
  type RecordedCheck,
} from './format.js';
import { buildLocator } from './locator-code.js';

/** Time one action may take (the element must appear and be actionable), in ms. */
export const REPLAY_ACTION_TIMEOUT_MS = 5_000;
/** Time an expectation has to come true, in ms. */
export const REPLAY_EXPECT_TIMEOUT_MS = 3_000;
const POLL_MS = 50;

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

/** The outcome of one replay. */
export interface ReplayResult {
  featureId: string;
  version: number;
  ok: boolean;
  durationMs: number;
  failure?: ReplayFailure;
  /** The page when the replay failed (absolute path), when a screenshot directory was given. */
  screenshot?: string;
}

/** What a replay needs. */
export interface ReplayOptions {
  /** The app, e.g. `http://127.0.0.1:4100/`: `goto` paths resolve against it. */
  baseUrl: string;
  /** Where the failure screenshot goes (`<featureId>-v<version>.png`); none when omitted. */
  screenshotDir?: string;
  /** Milliseconds clock, injectable. */
  clock?: () => number;
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

/** Replays the check in a context the caller owns (a fresh one: state left by others would leak in). */
export async function replayInContext(
  context: BrowserContext,
  check: RecordedCheck,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  const result = (failure?: ReplayFailure, screenshot?: string): ReplayResult => ({
    featureId: check.featureId,
    version: check.version,
    ok: failure === undefined,
    durationMs: clock() - started,
    ...(failure ? { failure } : {}),
    ...(screenshot ? { screenshot } : {}),
  });
  const session = watchContext(context);
  let page = await context.newPage();
  for (const [index, action] of check.actions.entries()) {
    try {
      page = await perform(page, action, options.baseUrl, session);
    } catch (error) {
      const failure = {
        stage: 'action' as const,
        index,
        description: describeAction(action),
        message: short(error),
      };
      return result(failure, await screenshot(page, check, options));
    }
  }
  for (const [index, expectation] of check.expectations.entries()) {
    const message = await unmet(page, expectation, options.baseUrl);
    if (message !== undefined) {
      const failure = {
        stage: 'expectation' as const,
        index,
        description: describeExpectation(expectation),
        message,
      };
      return result(failure, await screenshot(page, check, options));
    }
  }
  return result();
}

/** The pages and dialogs of one replay. */
interface ReplaySession {
  /** How the next dialog is answered: as the recorded click says (else accepted, like the evaluator's). */
  nextDialog(answer: 'accept' | 'dismiss', promptText?: string): void;
  /** The replay's pages in opening order (its first page, then popups), as the evaluator's tabs were. */
  tabs(): Page[];
}

/**
 * Watches the pages the replay opens and answers every dialog of the context (popups included), which
 * Playwright would otherwise dismiss unasked. Call before the replay opens its first page.
 */
function watchContext(context: BrowserContext): ReplaySession {
  const pages: Page[] = [];
  context.on('page', (page) => pages.push(page));
  let plan: { answer: 'accept' | 'dismiss'; promptText?: string } | undefined;
  context.on('dialog', (dialog) => {
    const { answer, promptText } = plan ?? { answer: 'accept' };
    plan = undefined;
    const answered = answer === 'accept' ? dialog.accept(promptText) : dialog.dismiss();
    void answered.catch(() => undefined);
  });
  return {
    nextDialog(answer, promptText) {
      plan = { answer, ...(promptText !== undefined ? { promptText } : {}) };
    },
    tabs: () => pages.filter((page) => !page.isClosed()),
  };
}

/** Performs one action; returns the page the check goes on in (a popup's, after a click that opens one). */
async function perform(
  page: Page,
  action: CheckAction,
  baseUrl: string,
  session: ReplaySession,
): Promise<Page> {
  const timeout = REPLAY_ACTION_TIMEOUT_MS;
  const target = (code: string) => buildLocator(page, code);
  switch (action.kind) {
    case 'goto':
      await actAndSettle(page, async () => {
        await page.goto(new URL(action.path, baseUrl).href, {
          waitUntil: 'load',
          timeout: NAVIGATION_TIMEOUT_MS,
        });
      });
      return page;
    case 'click':
      if (action.dialog) session.nextDialog(action.dialog, action.promptText);
      return click(page, action, timeout);
    case 'fill':
      await actAndSettle(page, () => target(action.target).fill(action.text, { timeout }));
      return page;
    case 'type':
      await actAndSettle(page, () => typeSlowly(target(action.target), action.text));
      return page;
    case 'press':
      await actAndSettle(page, () =>
        action.target
          ? target(action.target).press(action.key, { timeout })
          : page.keyboard.press(action.key),
      );
      return page;
    case 'select':
      await actAndSettle(page, async () => {
        await target(action.target).selectOption(action.values, { timeout });
      });
      return page;
    case 'hover':
      await target(action.target).hover({ timeout });
      return page;
    case 'check':
      await actAndSettle(page, () => target(action.target).setChecked(action.checked, { timeout }));
      return page;
    case 'back':
      await actAndSettle(page, async () => {
        await page.goBack({ timeout });
      });
      return page;
    case 'drag':
      await actAndSettle(page, () => target(action.target).dragTo(target(action.to), { timeout }));
      return page;
    case 'resize':
      await actAndSettle(page, () => page.setViewportSize({ width: action.width, height: action.height }));
      return page;
    case 'tab':
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
): Promise<Page> {
  const element = buildLocator(page, action.target);
  if (!action.popup) {
    await actAndSettle(page, () => element.click({ timeout }));
    return page;
  }
  const [popup] = await Promise.all([page.waitForEvent('popup', { timeout }), element.click({ timeout })]);
  await popup.waitForLoadState('load', { timeout: NAVIGATION_TIMEOUT_MS });
  return popup;
}

/** Why the expectation does not hold by its deadline, or undefined when it holds. */
async function unmet(
  page: Page,
  expectation: CheckExpectation,
  baseUrl: string,
): Promise<string | undefined> {
  const deadline = Date.now() + REPLAY_EXPECT_TIMEOUT_MS;
  let last = '';
  for (;;) {
    try {
      last = await observe(page, expectation, baseUrl);
      if (last === '') return undefined;
    } catch (error) {
      last = short(error);
    }
    if (Date.now() >= deadline) return last;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** '' when the expectation holds now, else what the page shows instead. */
async function observe(page: Page, expectation: CheckExpectation, baseUrl: string): Promise<string> {
  switch (expectation.kind) {
    case 'text': {
      // getByText matches whitespace-normalised, case-insensitive substrings: layout changes do not matter.
      const visible = await page.getByText(expectation.text).filter({ visible: true }).count();
      if (expectation.visible) return visible > 0 ? '' : 'no visible element shows this text';
      return visible === 0 ? '' : `${visible} visible element(s) still show this text`;
    }
    case 'url': {
      const actual = pathOf(page.url(), baseUrl);
      return actual === pathOf(expectation.path, baseUrl) ? '' : `the URL path is ${actual}`;
    }
    case 'title': {
      const title = await page.title();
      return title.trim() === expectation.title.trim() ? '' : `the title is ${JSON.stringify(title)}`;
    }
    case 'value': {
      const value = await buildLocator(page, expectation.target).inputValue({ timeout: POLL_MS * 4 });
      return value === expectation.value ? '' : `the value is ${JSON.stringify(value)}`;
    }
    case 'checked': {
      const checked = await buildLocator(page, expectation.target).isChecked({ timeout: POLL_MS * 4 });
      return checked === expectation.checked ? '' : checked ? 'it is checked' : 'it is not checked';
    }
    case 'count': {
      const count = await buildLocator(page, expectation.target).count();
      return count === expectation.count ? '' : `it matches ${count} element(s)`;
    }
  }
}

/** Path, query and fragment of a URL on the app (relative ones resolve against the base). */
export function pathOf(url: string, baseUrl: string): string {
  const parsed = new URL(url, baseUrl);
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/** One line describing an action, for failure reports. */
export function describeAction(action: CheckAction): string {
  switch (action.kind) {
    case 'goto':
      return `open ${action.path}`;
    case 'fill':
    case 'type':
      return `${action.kind} ${JSON.stringify(action.text)} into ${action.target}`;
    case 'press':
      return `press ${action.key}${action.target ? ` on ${action.target}` : ''}`;
    case 'select':
      return `select ${JSON.stringify(action.values)} in ${action.target}`;
    case 'check':
      return `${action.checked ? 'check' : 'uncheck'} ${action.target}`;
    case 'back':
      return 'go back';
    case 'drag':
      return `drag ${action.target} onto ${action.to}`;
    case 'resize':
      return `resize the viewport to ${action.width} x ${action.height}`;
    case 'tab':
      return `switch to tab ${action.index}`;
    default:
      return `${action.kind} ${action.target}`;
  }
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

/** The first line of an error, without ANSI colours or Playwright's call log. */
function short(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).replace(/\u001b\[[0-9;]*m/g, '');
  return (text.split(/\nCall log:\n/)[0] ?? text).trim().split('\n').slice(0, 3).join(' ');
}
