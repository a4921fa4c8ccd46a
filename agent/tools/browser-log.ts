/**
 * The observation log of one browser session: after every browser tool call, what the model was shown
 * (snapshot text, console output, navigation result, page errors, dialogs), numbered, with the action that
 * preceded it and, for actions, a structured target. The harness reads it to ground verdicts (the evidence a
 * model quotes must be something it saw after acting) and to record replayable checks. No role knowledge here.
 */
import type { ConsoleMessage, Dialog, Locator, Page } from 'playwright-core';
import { z } from 'zod';

/** The element an action was aimed at, as far as it could be described. All fields are optional. */
export const ObservedTarget = z.object({
  /** The snapshot ref the model used, e.g. `e5` (valid only for that snapshot). */
  ref: z.string().optional(),
  /** ARIA role, e.g. `button`, `textbox`, `link`. */
  role: z.string().optional(),
  /** Accessible name, e.g. `Add todo`. */
  name: z.string().optional(),
  /** Label text of a form control (`<label>`, `aria-label`, placeholder). */
  label: z.string().optional(),
  /** Visible text of the element (trimmed, at most 200 characters). */
  text: z.string().optional(),
  /** `data-testid` of the element. */
  testId: z.string().optional(),
  /** Playwright locator code from the normalized ref locator, e.g. `getByRole('button', { name: 'Add' })`. */
  locator: z.string().optional(),
});
export type ObservedTarget = z.infer<typeof ObservedTarget>;

/** A JavaScript dialog (alert, confirm, prompt, beforeunload) that appeared, and how it was answered. */
export const ObservedDialog = z.object({
  type: z.string(),
  message: z.string(),
  answer: z.enum(['accepted', 'dismissed']),
  /** Text entered into a prompt() when accepted. */
  promptText: z.string().optional(),
});
export type ObservedDialog = z.infer<typeof ObservedDialog>;

/** Whether a tool call acted on the page (navigate, click, type…) or only looked at it (snapshot, wait…). */
/**
 * The document a call ended on, so grounding can tell a page load from a field still holding what was typed:
 * a new document has a new time origin, and its navigation type says whether the browser may have restored the
 * form (`back_forward` does, from history) or the app wrote the page (`navigate`, e.g. a form's POST response).
 */
export const ObservedDocument = z.object({
  /** `performance.timeOrigin`: different for every document loaded. */
  origin: z.number(),
  /** `PerformanceNavigationTiming.type`: `navigate`, `reload`, `back_forward` or `prerender`. */
  navigation: z.string(),
});
export type ObservedDocument = z.infer<typeof ObservedDocument>;

export const ObservationKind = z.enum(['action', 'observation']);
export type ObservationKind = z.infer<typeof ObservationKind>;

/** One browser tool call and what the page showed after it. */
export const ObservationEntry = z.object({
  /** 1, 2, 3… in call order within the session. */
  seq: z.number().int().positive(),
  /** ISO time the entry was recorded (after the call). */
  at: z.string(),
  /** Tool name, e.g. `browser_click`. */
  tool: z.string(),
  kind: ObservationKind,
  /** The arguments the model gave. */
  args: z.record(z.string(), z.unknown()),
  /** For actions on an element: what the element was. */
  target: ObservedTarget.optional(),
  /** For `browser_drag`: the element it was dropped on. */
  dropTarget: ObservedTarget.optional(),
  /** False when the call failed; `error` says why and nothing was observed. */
  ok: z.boolean(),
  error: z.string().optional(),
  /** Seq of the latest successful action at or before this entry (its own seq for an action; 0 = none yet). */
  afterAction: z.number().int().nonnegative(),
  /** Page URL after the call. */
  url: z.string(),
  /** Page title after the call. */
  title: z.string().optional(),
  /** The snapshot text shown to the model after the call (as shown: possibly truncated in the middle). */
  snapshot: z.string().optional(),
  /** Result of a navigation (`browser_navigate`, `browser_navigate_back`). */
  navigation: z.object({ url: z.string(), status: z.number().int().optional() }).optional(),
  /** The document the page showed after the call (unknown when it could not be read, e.g. mid-navigation). */
  document: ObservedDocument.optional(),
  /** Console lines (`[type] text`) that appeared since the previous entry. */
  console: z.array(z.string()),
  /** Uncaught page errors and crashes (`[pageerror] …`, `[crash] …`) that appeared since the previous entry. */
  pageErrors: z.array(z.string()),
  /** Dialogs that appeared since the previous entry. */
  dialogs: z.array(ObservedDialog),
  /** URLs of tabs (popups, `target=_blank`) the call opened; the session went on in the last one. */
  newTabs: z.array(z.string()).optional(),
  /** The snapshot differs from the previous entry's snapshot (or the URL changed). */
  pageChanged: z.boolean(),
});
export type ObservationEntry = z.infer<typeof ObservationEntry>;

/** The whole log of a session, oldest first. */
export const ObservationLogData = z.array(ObservationEntry);

/** What a tool hands the log for one call; the log fills in seq, time, console, errors and dialogs. */
export interface ObservationInput {
  tool: string;
  kind: ObservationKind;
  args: Record<string, unknown>;
  target?: ObservedTarget;
  dropTarget?: ObservedTarget;
  ok: boolean;
  error?: string;
  url: string;
  title?: string;
  snapshot?: string;
  navigation?: { url: string; status?: number };
  document?: ObservedDocument;
  newTabs?: string[];
}

/** At most this many pending console lines are kept between two entries (a chatty page cannot grow the log unbounded). */
const MAX_PENDING_CONSOLE = 200;

/** Records what one browser session saw; create one per evaluation and hand it to `createBrowserTools`. */
export class ObservationLog {
  private readonly list: ObservationEntry[] = [];
  private pendingConsole: string[] = [];
  private pendingErrors: string[] = [];
  private pendingDialogs: ObservedDialog[] = [];
  private lastAction = 0;
  private lastView = '';

  constructor(private readonly clock: () => number = Date.now) {}

  /** Entries so far, oldest first (the live array; do not modify). */
  entries(): readonly ObservationEntry[] {
    return this.list;
  }

  /** The snapshot text of the latest entry that has one ('' when none): where the model's refs come from. */
  lastSnapshot(): string {
    for (let i = this.list.length - 1; i >= 0; i -= 1) {
      const snapshot = this.list[i]?.snapshot;
      if (snapshot !== undefined) return snapshot;
    }
    return '';
  }

  /** Seq of the latest successful action (0 = none). */
  lastActionSeq(): number {
    return this.lastAction;
  }

  /** Appends one tool call with everything that appeared on the page since the previous entry. */
  record(input: ObservationInput): ObservationEntry {
    const seq = this.list.length + 1;
    if (input.kind === 'action' && input.ok) this.lastAction = seq;
    const view = `${input.url}\n${input.snapshot ?? ''}`;
    const pageChanged = input.ok && input.snapshot !== undefined && view !== this.lastView;
    if (input.ok && input.snapshot !== undefined) this.lastView = view;
    const entry: ObservationEntry = {
      seq,
      at: new Date(this.clock()).toISOString(),
      ...input,
      afterAction: this.lastAction,
      console: this.pendingConsole,
      pageErrors: this.pendingErrors,
      dialogs: this.pendingDialogs,
      pageChanged,
    };
    this.pendingConsole = [];
    this.pendingErrors = [];
    this.pendingDialogs = [];
    this.list.push(entry);
    return entry;
  }

  /** Notes a console line; `[pageerror]` and `[crash]` lines also count as page errors. */
  noteConsole(line: string): void {
    this.pendingConsole.push(line);
    if (this.pendingConsole.length > MAX_PENDING_CONSOLE) this.pendingConsole.shift();
    if (isPageError(line)) this.pendingErrors.push(line);
  }

  /** Notes a dialog and how it was answered. */
  noteDialog(dialog: ObservedDialog): void {
    this.pendingDialogs.push(dialog);
  }

  /** Subscribes to a page's console, errors and crashes (call once per page, popups included). */
  watch(page: Page): void {
    page.on('console', (message: ConsoleMessage) => this.noteConsole(consoleLine(message)));
    page.on('pageerror', (error: Error) => this.noteConsole(`[pageerror] ${error.message}`));
    page.on('crash', () => this.noteConsole('[crash] the page crashed'));
  }
}

/** True for console lines that are uncaught page errors or crashes. */
export function isPageError(line: string): boolean {
  return line.startsWith('[pageerror]') || line.startsWith('[crash]');
}

/** One console message as one line, like the browser pool writes it. */
export function consoleLine(message: ConsoleMessage): string {
  const where = message.location();
  const at = where.url ? ` (${where.url}:${where.lineNumber + 1})` : '';
  return `[${message.type()}] ${message.text()}${at}`;
}

/** The dialog as the log records it. */
export function observedDialog(
  dialog: Dialog,
  answer: ObservedDialog['answer'],
  promptText?: string,
): ObservedDialog {
  return {
    type: dialog.type(),
    message: dialog.message(),
    answer,
    ...(promptText !== undefined ? { promptText } : {}),
  };
}

/** Everything the model was shown in one entry, as one text: what grounding searches. */
export function seenText(entry: ObservationEntry): string {
  const parts = [entry.url, entry.title ?? '', entry.snapshot ?? '', ...entry.console];
  if (entry.navigation) {
    parts.push(`${entry.navigation.url}${entry.navigation.status ? ` HTTP ${entry.navigation.status}` : ''}`);
  }
  for (const dialog of entry.dialogs) parts.push(dialog.message);
  parts.push(...(entry.newTabs ?? []));
  return parts.join('\n');
}

/** The document `page` shows now, or undefined when it cannot be read (then grounding assumes no page load). */
export async function observedDocument(page: Page): Promise<ObservedDocument | undefined> {
  const read = await page
    .evaluate(() => {
      const [timing] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      return { origin: performance.timeOrigin, navigation: timing?.type ?? 'unknown' };
    })
    .catch(() => undefined);
  const parsed = ObservedDocument.safeParse(read);
  return parsed.success ? parsed.data : undefined;
}

const TEXT_MAX = 200;

/**
 * Describes the element a ref locator points to: role and name from the snapshot line that gave the ref,
 * label, text and test id from the DOM, and Playwright's normalized locator code. Never throws; unknown parts
 * are left out. (Not `locator.ariaSnapshot()`: it would replace the refs of the model's snapshot.)
 */
export async function describeTarget(locator: Locator, ref: string, snapshot = ''): Promise<ObservedTarget> {
  const target: ObservedTarget = { ref };
  const line = snapshot.split('\n').find((candidate) => candidate.includes(`[ref=${ref}]`)) ?? '';
  const parsed = /^\s*-\s+([a-z]+)(?:\s+"((?:[^"\\]|\\.)*)")?/.exec(line);
  if (parsed?.[1]) target.role = parsed[1];
  if (parsed?.[2]) target.name = parsed[2].replace(/\\"/g, '"');
  const dom = await locator
    .evaluate(
      (element) => {
        const control = element as HTMLInputElement;
        const labelled = control.labels?.[0]?.textContent ?? element.getAttribute('aria-label');
        return {
          label: labelled ?? element.getAttribute('placeholder') ?? '',
          text: element.textContent ?? '',
          testId: element.getAttribute('data-testid') ?? '',
        };
      },
      undefined,
      { timeout: 1_000 },
    )
    .catch(() => undefined);
  if (dom?.label.trim()) target.label = dom.label.trim();
  const text = dom?.text.trim().replace(/\s+/g, ' ');
  if (text) target.text = text.slice(0, TEXT_MAX);
  if (dom?.testId) target.testId = dom.testId;
  const normalized = await locator.normalize().catch(() => undefined);
  if (normalized) target.locator = String(normalized);
  return target;
}
