import type { Locator, Page } from 'playwright-core';
import type { ToolOutput } from '../tool.js';
import { describePage, normalizeOrigins, toToolError } from './browser-page.js';

/** What the browser tools work on: one page of one evaluation and where its evidence goes. */
export interface BrowserToolSession {
  /** The page under the model's control (from the evaluation's fresh browser context). */
  page: Page;
  /** Directory for screenshots (the evaluation's evidence directory). */
  evidenceDir: string;
  /** Console messages and page errors collected so far, oldest first. */
  consoleMessages: () => readonly string[];
  /** Origins (or URLs; their origin is taken) the model may navigate to, e.g. the app's `http://127.0.0.1:4100`. */
  allowedOrigins: string[];
  /**
   * Told of each action before it runs (the target still on the page), e.g. to record a replayable check.
   * Returns what to call once the action succeeded; a failed action is never confirmed.
   */
  recordAction?: (action: BrowserActionNote) => Promise<(() => void) | undefined>;
}

/** A browser action as a tool performs it; `target` is the live element the model's ref points to. */
export type BrowserActionNote =
  | { kind: 'navigate'; url: string }
  | { kind: 'click'; target: Locator }
  | { kind: 'type'; target: Locator; text: string; submit: boolean }
  | { kind: 'press'; key: string }
  | { kind: 'select'; target: Locator; values: string[] };

/** Console lines of these kinds are shown in action results as soon as they appear. */
const ALERT_PREFIXES = ['[error]', '[pageerror]', '[crash]'];

/** At most this many new console errors are quoted in one action result. */
const MAX_ALERTS_PER_RESULT = 5;

/** Shared plumbing of the browser tools: error conversion, the after-action report, console bookkeeping. */
export interface BrowserToolState {
  readonly session: BrowserToolSession;
  /** Allowed origins in normalized form (`scheme://host:port`). */
  readonly allowedOrigins: string[];
  /** Runs a tool body; any failure becomes a ToolError whose message starts with `what`. */
  run(what: string, body: (page: Page) => Promise<ToolOutput | string>): Promise<ToolOutput | string>;
  /** A one-line result, any new console errors, then URL, title and a fresh snapshot. */
  report(result: string): Promise<string>;
  /** Console messages the model has not been shown yet, marking them shown. */
  takeUnseenConsole(): readonly string[];
  /** Performs an action, telling the session's recorder (if any) before and after it succeeded. */
  act(note: BrowserActionNote, body: () => Promise<void>): Promise<void>;
}

/** Creates the shared state for one set of browser tools. */
export function createBrowserToolState(session: BrowserToolSession): BrowserToolState {
  let shown = 0;
  const state: BrowserToolState = {
    session,
    allowedOrigins: normalizeOrigins(session.allowedOrigins),
    async run(what, body) {
      try {
        return await body(session.page);
      } catch (error) {
        throw toToolError(error, what);
      }
    },
    async report(result) {
      const alerts = state
        .takeUnseenConsole()
        .filter((line) => ALERT_PREFIXES.some((p) => line.startsWith(p)));
      const lines = [result];
      if (alerts.length) {
        lines.push(`New console errors (${alerts.length}):`, ...alerts.slice(-MAX_ALERTS_PER_RESULT));
      }
      const outside = !state.allowedOrigins.includes(safeOrigin(session.page.url()));
      if (outside && session.page.url() !== 'about:blank') {
        lines.push('Note: the page is now outside the app under test.');
      }
      lines.push(await describePage(session.page));
      return lines.join('\n');
    },
    async act(note, body) {
      // A recorder that fails must not fail the model's action: the check is then just not recorded.
      const confirm = await session.recordAction?.(note).catch(() => undefined);
      await body();
      confirm?.();
    },
    takeUnseenConsole() {
      // The session's list is capped (oldest dropped first); once it is full, new lines go unannounced
      // here but browser_console_messages still lists them.
      const all = session.consoleMessages();
      const unseen = all.slice(Math.min(shown, all.length));
      shown = all.length;
      return unseen;
    },
  };
  return state;
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
