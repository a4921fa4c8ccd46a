/**
 * The tabs of one browser session and how its JavaScript dialogs are answered. Every page of the evaluation's
 * context (popups and `target=_blank` tabs included, which stay under the context's gate) is watched by the
 * observation log and answers its dialogs here: never silently dismissed as Playwright would without a listener.
 */
import type { Dialog, Page } from 'playwright-core';
import { type ObservationLog, type ObservedDialog, observedDialog } from './browser-log.js';
import { ACTION_TIMEOUT_MS } from './browser-page.js';

/** How the next dialog is answered. */
export interface DialogPlan {
  accept: boolean;
  /** Text entered into a prompt() when it is accepted (its default value otherwise). */
  promptText?: string;
}

/** Without a plan, dialogs are accepted: a confirm() before a delete lets a working delete work. */
const DEFAULT_PLAN: DialogPlan = { accept: true };

/** One open tab as listed to the model. */
export interface TabInfo {
  index: number;
  url: string;
  title: string;
  current: boolean;
}

/** The pages of one session; the tools act on `current()`. */
export class BrowserTabs {
  private readonly pages: Page[] = [];
  private active: Page;
  private opened: Page[] = [];
  private notes: string[] = [];
  private plan: DialogPlan | undefined;
  /** Pages the browser announced for this context (see `announcedPages`); undefined when it cannot say. */
  private announced: Promise<(() => number) | undefined>;
  private received = 0;

  constructor(
    first: Page,
    private readonly observations: ObservationLog,
  ) {
    this.active = first;
    this.adopt(first);
    first.context().on('page', (page) => {
      this.received += 1;
      this.adopt(page);
      this.opened.push(page);
    });
    this.announced = announcedPages(first).catch(() => undefined);
  }

  /** The page the tools act on now. */
  current(): Page {
    return this.active;
  }

  /** Open tabs in opening order. */
  async list(): Promise<TabInfo[]> {
    return Promise.all(
      this.pages.map(async (page, index) => ({
        index,
        url: page.url(),
        title: await page.title().catch(() => ''),
        current: page === this.active,
      })),
    );
  }

  /** Index of the current tab (-1 when every tab is closed). */
  currentIndex(): number {
    return this.pages.indexOf(this.active);
  }

  /** The open tab at `index`, or undefined. */
  at(index: number): Page | undefined {
    return this.pages[index];
  }

  /** How many tabs are open. */
  get count(): number {
    return this.pages.length;
  }

  /** Makes this open tab the current one. */
  async select(page: Page): Promise<void> {
    this.active = page;
    await page.bringToFront().catch(() => undefined);
  }

  /** Sets how the next dialog is answered (once; later ones are accepted again). */
  planNextDialog(plan: DialogPlan): void {
    this.plan = plan;
  }

  /** The plan the next dialog will get, for messages. */
  nextDialogPlan(): DialogPlan {
    return this.plan ?? DEFAULT_PLAN;
  }

  /**
   * Follows tabs opened since the last call (the newest becomes current, once it has loaded) and returns one
   * line per event: tabs opened, and the current tab closed by the page.
   */
  async follow(): Promise<{ lines: string[]; newTabs: string[] }> {
    await this.awaitAnnounced();
    const opened = this.opened.filter((page) => !page.isClosed());
    this.opened = [];
    const lines = this.notes;
    this.notes = [];
    const newTabs: string[] = [];
    for (const page of opened) {
      await page.waitForLoadState('load', { timeout: ACTION_TIMEOUT_MS }).catch(() => undefined);
      newTabs.push(page.url());
    }
    const newest = opened.at(-1);
    if (newest) {
      await this.select(newest);
      for (const url of newTabs) lines.push(`A new tab opened: ${url}`);
      lines.push(
        `The browser tools now act on it (tab ${this.pages.indexOf(newest)}); browser_tabs lists and switches tabs.`,
      );
    }
    return { lines, newTabs };
  }

  /** Waits (bounded) until every page the browser created for the context has reached us as a Page. */
  private async awaitAnnounced(): Promise<void> {
    const count = await this.announced;
    if (!count) return;
    const deadline = Date.now() + ACTION_TIMEOUT_MS;
    while (this.received < count() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A page that never reached us (closed at once) must not make every later call wait.
    this.received = Math.max(this.received, count());
  }

  private adopt(page: Page): void {
    this.pages.push(page);
    this.observations.watch(page);
    page.on('dialog', (dialog) => void this.answer(dialog));
    page.on('close', () => this.forget(page));
  }

  private forget(page: Page): void {
    const index = this.pages.indexOf(page);
    if (index < 0) return;
    this.pages.splice(index, 1);
    if (page !== this.active) return;
    const next = this.pages.at(-1);
    if (!next) return; // nothing left: the next action fails with "the page is gone"
    this.active = next;
    this.notes.push(`The current tab closed; the browser tools now act on tab ${this.pages.indexOf(next)}.`);
  }

  private async answer(dialog: Dialog): Promise<void> {
    const plan = this.plan ?? DEFAULT_PLAN;
    this.plan = undefined;
    const promptText =
      plan.accept && dialog.type() === 'prompt' ? (plan.promptText ?? dialog.defaultValue()) : undefined;
    this.observations.noteDialog(observedDialog(dialog, plan.accept ? 'accepted' : 'dismissed', promptText));
    // Another listener (a second tool set on the same page) may have answered it first.
    await (plan.accept ? dialog.accept(promptText) : dialog.dismiss()).catch(() => undefined);
  }
}

/**
 * How many pages (besides `first`) Chromium has created in `first`'s context, counted from CDP's
 * `Target.targetCreated`. Chromium announces a popup while the click that opens it is still being handled,
 * whereas Playwright's `page` event comes only once the new page is set up, which on a loaded machine can be
 * after the action and its settling: without this count a new tab could go unreported. Undefined outside
 * Chromium.
 */
async function announcedPages(first: Page): Promise<(() => number) | undefined> {
  const context = first.context();
  const browser = context.browser();
  if (!browser) return undefined;
  const own = await context.newCDPSession(first);
  const { targetInfo } = await own.send('Target.getTargetInfo');
  await own.detach();
  const cdp = await browser.newBrowserCDPSession();
  const created = new Set<string>();
  cdp.on('Target.targetCreated', ({ targetInfo: target }) => {
    const ours = target.browserContextId === targetInfo.browserContextId;
    // A subtype (prerender, a portal) is not a tab Playwright hands out as a page.
    const tab = target.type === 'page' && target.subtype === undefined;
    if (ours && tab && target.targetId !== targetInfo.targetId) created.add(target.targetId);
  });
  context.once('close', () => void cdp.detach().catch(() => undefined));
  await cdp.send('Target.setDiscoverTargets', { discover: true });
  return () => created.size;
}

/** One line telling the model about a dialog, e.g. `A confirm dialog appeared: "Delete?" (accepted).` */
export function describeDialog(dialog: ObservedDialog): string {
  const typed = dialog.promptText !== undefined ? ` with ${JSON.stringify(dialog.promptText)}` : '';
  return `A ${dialog.type} dialog appeared: ${JSON.stringify(dialog.message)} (${dialog.answer}${typed}).`;
}
