/**
 * The expectations of a replay, judged after its actions: each waited for until it holds or its time is up, like
 * Playwright's `expect` — texts and the URL with Playwright's own waiting (`waitFor` visible / detached,
 * `waitForURL`), title, value, checked and count observed every 50 ms.
 */
import type { Page } from 'playwright-core';
import type { CheckExpectation } from './format.js';
import { buildLocator } from './locator-code.js';
import {
  expectedNumbers,
  type NumberPattern,
  numberPattern,
  numbersMatched,
  sourceWithNumbers,
} from './relative-text.js';

/** Time an expectation has to come true, in ms. */
export const REPLAY_EXPECT_TIMEOUT_MS = 3_000;
const POLL_MS = 50;

/**
 * Why the expectation does not hold by its deadline, or undefined when it holds. A `relativeText` expectation
 * needs the numbers its baseline showed in this replay (`counted`).
 */
export async function unmet(
  page: Page,
  expectation: CheckExpectation,
  baseUrl: string,
  counted?: readonly number[],
): Promise<string | undefined> {
  const timeout = REPLAY_EXPECT_TIMEOUT_MS;
  switch (expectation.kind) {
    case 'relativeText': {
      const pattern = numberPattern(expectation.text);
      if (!pattern || !counted)
        return `no numbers were read after action ${expectation.baseline.afterAction + 1}`;
      const numbers = expectedNumbers(expectation.text, expectation.baseline.text, counted);
      const wanted = new RegExp(sourceWithNumbers(pattern, numbers), 'i');
      const shown = page.getByText(wanted).filter({ visible: true }).first();
      const held = await shown.waitFor({ state: 'visible', timeout }).then(
        () => true,
        () => false,
      );
      if (held) return undefined;
      const now = await readNumbers(page, pattern, POLL_MS * 4);
      return `expected the numbers ${numbers.join(', ')} (read ${counted.join(', ')} after action ${expectation.baseline.afterAction + 1}); the page shows ${now ? now.text : 'no such text'}`;
    }
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
      // Each look may wait for the element until the deadline: on a loaded machine finding it can take longer
      // than a poll, and a look that always gave up after one poll would never see an element that is there.
      last = await observe(page, expectation, Math.max(POLL_MS * 4, deadline - Date.now()));
      if (last === '') return undefined;
    } catch (error) {
      last = shortError(error);
    }
    if (Date.now() >= deadline) return last;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** '' when the expectation holds now, else what the page shows instead; `wait`: how long to wait for its element. */
async function observe(page: Page, expectation: CheckExpectation, wait: number): Promise<string> {
  switch (expectation.kind) {
    case 'title': {
      const title = await page.title();
      return title.trim() === expectation.title.trim() ? '' : `the title is ${JSON.stringify(title)}`;
    }
    case 'value': {
      const value = await buildLocator(page, expectation.target).inputValue({ timeout: wait });
      return value === expectation.value ? '' : `the value is ${JSON.stringify(value)}`;
    }
    case 'checked': {
      const checked = await buildLocator(page, expectation.target).isChecked({ timeout: wait });
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

/**
 * The numbers of the first visible text of the pattern, waiting up to `timeout` ms for one (what a `relativeText`
 * expectation counts from); undefined when none shows.
 */
export async function readNumbers(
  page: Page,
  pattern: NumberPattern,
  timeout = REPLAY_EXPECT_TIMEOUT_MS,
): Promise<{ numbers: number[]; text: string } | undefined> {
  const shown = page.getByText(new RegExp(pattern.source, 'i')).filter({ visible: true }).first();
  try {
    await shown.waitFor({ state: 'visible', timeout });
    const text = (await shown.textContent({ timeout: POLL_MS * 4 })) ?? '';
    const numbers = numbersMatched(pattern, text.replace(/\s+/g, ' '));
    return numbers ? { numbers, text: JSON.stringify(text.trim()) } : undefined;
  } catch {
    return undefined;
  }
}

/** Reads, after each action, the baselines the check's `relativeText` expectations count from. */
export class CountedBaselines {
  private readonly numbers = new Map<number, number[]>();

  constructor(private readonly expectations: readonly CheckExpectation[]) {}

  /** Reads the baselines due after action `index`; why one could not be read (by expectation index), if so. */
  async afterAction(page: Page, index: number): Promise<{ index: number; message: string } | undefined> {
    for (const [position, expectation] of this.expectations.entries()) {
      if (expectation.kind !== 'relativeText' || expectation.baseline.afterAction !== index) continue;
      const pattern = numberPattern(expectation.text);
      const read = pattern ? await readNumbers(page, pattern) : undefined;
      if (!read) {
        const message = `after action ${index + 1} no visible text like ${JSON.stringify(expectation.baseline.text)} to count from`;
        return { index: position, message };
      }
      this.numbers.set(position, read.numbers);
    }
    return undefined;
  }

  /** Whether any baseline is read after action `index`. */
  due(index: number): boolean {
    return this.expectations.some((e) => e.kind === 'relativeText' && e.baseline.afterAction === index);
  }

  /** The numbers read for the expectation at this index. */
  of(position: number): number[] | undefined {
    return this.numbers.get(position);
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
