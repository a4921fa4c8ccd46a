/**
 * The expectations of a replay, judged after its actions: each waited for until it holds or its time is up, like
 * Playwright's `expect` — texts and the URL with Playwright's own waiting (`waitFor` visible / detached,
 * `waitForURL`), title, value, checked and count observed every 50 ms.
 */
import type { Page } from 'playwright-core';
import type { CheckExpectation } from './format.js';
import { buildLocator } from './locator-code.js';

/** Time an expectation has to come true, in ms. */
export const REPLAY_EXPECT_TIMEOUT_MS = 3_000;
const POLL_MS = 50;

/** Why the expectation does not hold by its deadline, or undefined when it holds. */
export async function unmet(
  page: Page,
  expectation: CheckExpectation,
  baseUrl: string,
): Promise<string | undefined> {
  const timeout = REPLAY_EXPECT_TIMEOUT_MS;
  switch (expectation.kind) {
    case 'text': {
      // getByText matches whitespace-normalised, case-insensitive substrings: layout changes do not matter.
      const shown = page.getByText(expectation.text).filter({ visible: true });
      // Playwright's own waiting: visible, or (for a text that must be gone) no visible match left.
      const state = expectation.visible ? 'visible' : 'detached';
      const held = await shown
        .first()
        .waitFor({ state, timeout })
        .then(
          () => true,
          () => false,
        );
      if (held) return undefined;
      if (expectation.visible) return 'no visible element shows this text';
      return `${await shown.count().catch(() => '?')} visible element(s) still show this text`;
    }
    case 'url': {
      const expected = pathOf(expectation.path, baseUrl);
      const held = await page
        .waitForURL((url) => pathOf(url.href, baseUrl) === expected, { timeout, waitUntil: 'commit' })
        .then(
          () => true,
          () => false,
        );
      return held ? undefined : `the URL path is ${pathOf(page.url(), baseUrl)}`;
    }
    default:
      return polled(page, expectation, timeout);
  }
}

/** Observes the expectation until it holds or the time is up (title, value, checked, count). */
async function polled(
  page: Page,
  expectation: CheckExpectation,
  timeout: number,
): Promise<string | undefined> {
  const deadline = Date.now() + timeout;
  let last = '';
  for (;;) {
    try {
      last = await observe(page, expectation);
      if (last === '') return undefined;
    } catch (error) {
      last = shortError(error);
    }
    if (Date.now() >= deadline) return last;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** '' when the expectation holds now, else what the page shows instead. */
async function observe(page: Page, expectation: CheckExpectation): Promise<string> {
  switch (expectation.kind) {
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
    default:
      throw new Error(`${expectation.kind} expectations are not polled`);
  }
}

/** Path, query and fragment of a URL on the app (relative ones resolve against the base). */
export function pathOf(url: string, baseUrl: string): string {
  const parsed = new URL(url, baseUrl);
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/** The first line of an error, without ANSI colours or Playwright's call log. */
export function shortError(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).replace(/\u001b\[[0-9;]*m/g, '');
  return (text.split(/\nCall log:\n/)[0] ?? text).trim().split('\n').slice(0, 3).join(' ');
}
