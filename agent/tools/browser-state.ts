import type { Page } from 'playwright-core';
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
}

/** Console lines of these kinds are shown in action results as soon as they appear (`[blocked]`: the browser gate). */
const ALERT_PREFIXES = ['[error]', '[pageerror]', '[crash]', '[blocked]'];

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
