/**
 * Expectations that pin where a recorded check ends, beside its quoted texts. A quoted text alone also matches the
 * same words elsewhere: "My recipes" is a menu link on every page, so a check of "log in and land on My recipes"
 * stayed green when a change sent the user to the home page (the meal-planner overnight bench's one false pass).
 * So the recorder also keeps, when the evaluator's page confirms it, the heading of a quoted text's exact name and
 * the URL path the evidence names. Neither is kept for texts with digits or the check's own typed data: those
 * differ between replays on a sweep's shared app (ids, counts, the unique suffix of replay-data.ts).
 */
import type { Page } from 'playwright-core';
import { escapeRegExp } from '../core/regexp.js';
import { appPathOf } from './app-path.js';
import type { CheckExpectation } from './format.js';
import { printLocatorCode } from './locator-code.js';

/** Whether `text` may differ between replays: it has digits or holds (or is held by) a text the check typed. */
function variesByReplay(text: string, typed: readonly string[]): boolean {
  if (/\d/.test(text)) return true;
  return typed.some((entry) => entry.length > 0 && (text.includes(entry) || entry.includes(text)));
}

/** The one heading named exactly `text` on the page now, as a count expectation; undefined when there is not one. */
export async function headingOf(
  page: Page,
  text: string,
  typed: readonly string[],
): Promise<CheckExpectation | undefined> {
  if (variesByReplay(text, typed)) return undefined;
  if ((await page.getByRole('heading', { name: text, exact: true }).count()) !== 1) return undefined;
  return {
    kind: 'count',
    target: printLocatorCode([{ kind: 'role', role: 'heading', name: text, exact: true }]),
    count: 1,
  };
}

function decoded(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/**
 * The page's URL path as an expectation when the evidence names it (`The address is now /recipes`, or the whole
 * URL): not the root (a bare `/` is too common in prose), nor a path that may differ between replays.
 */
export function mentionedPath(
  pageUrl: string,
  baseUrl: string,
  evidence: readonly string[],
  typed: readonly string[],
): CheckExpectation | undefined {
  const path = appPathOf(pageUrl, baseUrl);
  const readable = path === null ? undefined : decoded(path);
  if (!path || !readable || path === '/' || variesByReplay(readable, typed)) return undefined;
  // Standing on its own: not the tail of a longer path or a host (`/api/recipes`, `example.com/recipes`).
  const named = new RegExp(`(?:^|[\\s"'\`(<[])${escapeRegExp(path)}(?=$|[\\s"'\`)>\\].,;:!?])`);
  return evidence.some((line) => line.includes(pageUrl) || named.test(line))
    ? { kind: 'url', path }
    : undefined;
}
