import type { Page } from 'playwright-core';
import { ToolError, type ToolOutput } from '../tool.js';
import {
  type ObservationKind,
  ObservationLog,
  type ObservedTarget,
  observedDocument,
} from './browser-log.js';
import { describePage, normalizeOrigins, toToolError } from './browser-page.js';
import { BrowserTabs, describeDialog } from './browser-tabs.js';

/** What the browser tools work on: one page of one evaluation and where its evidence goes. */
export interface BrowserToolSession {
  /** The page under the model's control (from the evaluation's fresh browser context); tabs it opens are followed. */
  page: Page;
  /** Directory for screenshots (the evaluation's evidence directory). */
  evidenceDir: string;
  /** Console messages and page errors collected so far, oldest first. */
  consoleMessages: () => readonly string[];
  /** Origins (or URLs; their origin is taken) the model may navigate to, e.g. the app's `http://127.0.0.1:4100`. */
  allowedOrigins: string[];
  /** Where every call and what it showed is recorded; pass one to read it afterwards (a private one otherwise). */
  observations?: ObservationLog;
}

/** Console lines of these kinds are shown in action results as soon as they appear (`[blocked]`: the browser gate). */
const ALERT_PREFIXES = ['[error]', '[pageerror]', '[crash]', '[blocked]'];

/** At most this many new console errors are quoted in one action result. */
const MAX_ALERTS_PER_RESULT = 5;

/** One tool call as the observation log records it. */
export interface BrowserCall {
  tool: string;
  kind: ObservationKind;
  args: Record<string, unknown>;
  target?: ObservedTarget;
  dropTarget?: ObservedTarget;
  navigation?: { url: string; status?: number };
}

/** Shared plumbing of the browser tools: error conversion, the after-action report, console bookkeeping. */
export interface BrowserToolState {
  readonly session: BrowserToolSession;
  /** Allowed origins in normalized form (`scheme://host:port`). */
  readonly allowedOrigins: string[];
  /** The session's observation log. */
  readonly observations: ObservationLog;
  /** The session's tabs and its dialog answers. */
  readonly tabs: BrowserTabs;
  /** The page the tools act on now (the current tab). */
  page(): Page;
  /**
   * Runs a tool body; any failure becomes a ToolError whose message starts with `what`, and is recorded in the
   * observation log when `call` is given.
   */
  run(
    what: string,
    body: (page: Page) => Promise<ToolOutput | string>,
    call?: BrowserCall,
  ): Promise<ToolOutput | string>;
  /**
   * A one-line result, tabs opened (followed) or closed, dialogs answered, any new console errors, then URL,
   * title and a fresh snapshot of the current tab; the call and the snapshot are recorded in the observation log. `details.pageChanged` says whether the page differs from the last view.
   */
  report(result: string, call: BrowserCall): Promise<ToolOutput>;
  /** Console messages the model has not been shown yet, marking them shown. */
  takeUnseenConsole(): readonly string[];
}

/** Creates the shared state for one set of browser tools. */
export function createBrowserToolState(session: BrowserToolSession): BrowserToolState {
  let shown = 0;
  const observations = session.observations ?? new ObservationLog();
  const tabs = new BrowserTabs(session.page, observations);
  const state: BrowserToolState = {
    session,
    allowedOrigins: normalizeOrigins(session.allowedOrigins),
    observations,
    tabs,
    page: () => tabs.current(),
    async run(what, body, call) {
      const page = state.page();
      try {
        return await body(page);
      } catch (error) {
        const failure = toToolError(error, what);
        if (!call) throw failure;
        const entry = observations.record({ ...call, ok: false, error: failure.message, url: page.url() });
        // A dialog the failed action opened is news the model needs as much as the failure.
        const dialogs = entry.dialogs.map(describeDialog);
        throw dialogs.length ? new ToolError([failure.message, ...dialogs].join('\n')) : failure;
      }
    },
    async report(result, call) {
      const followed = await tabs.follow();
      const page = state.page();
      const alerts = state
        .takeUnseenConsole()
        .filter((line) => ALERT_PREFIXES.some((p) => line.startsWith(p)));
      // Read on both sides of the snapshot: a load landing in between leaves the document unknown, never wrong.
      const before = await observedDocument(page);
      const view = await describePage(page);
      const after = await observedDocument(page);
      const newTabs = followed.newTabs.length ? { newTabs: followed.newTabs } : {};
      const known = before && after && before.origin === after.origin ? { document: after } : {};
      const entry = observations.record({
        ...call,
        ...newTabs,
        ...known,
        ok: true,
        url: page.url(),
        snapshot: view,
      });
      const lines = [result, ...followed.lines, ...entry.dialogs.map(describeDialog)];
      if (alerts.length) {
        lines.push(`New console errors (${alerts.length}):`, ...alerts.slice(-MAX_ALERTS_PER_RESULT));
      }
      const outside = !state.allowedOrigins.includes(safeOrigin(page.url()));
      if (outside && page.url() !== 'about:blank') {
        lines.push('Note: the page is now outside the app under test.');
      }
      lines.push(view);
      return {
        content: lines.join('\n'),
        details: { observation: entry.seq, pageChanged: entry.pageChanged },
      };
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
