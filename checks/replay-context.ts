/**
 * One browser context and page reused by the replays of a sweep (a warm browser): a new context, or only a new
 * page, costs more than a replay's own actions on a shared machine. Before each replay the page is made as clean
 * as a new one for the app: popups closed, the page left for about:blank (the last document unloaded, its
 * scripts and timers gone), cookies cleared, the app origin's local and session storage, IndexedDB, Cache
 * Storage and service workers cleared, the back/forward history reset (a new page's history is its blank page),
 * `window.name` emptied, the viewport back to the context's size, the pointer out of the viewport. What stays warm is the
 * renderer and the browser's HTTP cache (the app's files do not change within a sweep). A page that cannot be
 * cleared (crashed) is replaced by a new one.
 */
import type { BrowserContext, CDPSession, Dialog, Page } from 'playwright-core';
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import type { RecordedCheck } from './format.js';
import { type ReplayOptions, type ReplayResult, replayOnPage } from './replay.js';

const log = moduleLogger('checks/replay-context');

/** How long leaving the last replay's page may take before a new page replaces it, in ms. */
const CLEAR_TIMEOUT_MS = 5_000;

/** The reused context could not give a clean page (the browser or the context is gone). */
export class ReplayContextResetError extends NightshiftError {
  constructor(message: string, cause: unknown) {
    super('REPLAY_CONTEXT_RESET_FAILED', `Could not clear the replay context: ${message}`, {
      hint: 'The browser or its context crashed: replay the rest in a new context.',
      cause,
    });
  }
}

/** Replays checks one after another on one page of one context, cleared between them. */
export class ReusedReplayContext {
  private page: Page | undefined;
  private cdp: CDPSession | undefined;
  private dirty = false;
  private readonly viewport: { width: number; height: number } | null;
  /** Origins of apps replayed here before the current one: their storage and the HTTP cache go at the next clearing. */
  private readonly leftOrigins = new Set<string>();

  /** `context`: a context of the sweep's own, opened on `first` (blank); `baseUrl`: the app whose origin is cleared. */
  constructor(
    private readonly context: BrowserContext,
    private baseUrl: string,
    first: Page,
  ) {
    this.page = first;
    this.viewport = first.viewportSize();
  }

  /** The context this replays in. */
  get browserContext(): BrowserContext {
    return this.context;
  }

  /**
   * Points the context at another app (a later sweep's or pass gate's): before its next replay the page is cleared
   * as between checks, and also of what the last app left, its storage and the browser's HTTP cache (a new app may
   * answer on the same port with other files).
   */
  retarget(baseUrl: string): void {
    // Even at the same URL it is another app (a port is reused): what the last one left goes all the same.
    this.leftOrigins.add(new URL(this.baseUrl).origin);
    this.baseUrl = baseUrl;
    this.dirty = true;
  }

  /** Replays the check on the cleared page (the clearing counts in the replay's time). */
  async replay(check: RecordedCheck, options: Omit<ReplayOptions, 'baseUrl'> = {}): Promise<ReplayResult> {
    const started = performance.now();
    const page = await this.cleanPage();
    this.dirty = true;
    return replayOnPage(page, check, { ...options, baseUrl: this.baseUrl }, performance.now() - started);
  }

  /**
   * Leaves the last replay's document for a blank page (its scripts and timers gone), for a context that waits
   * between apps; false when the page cannot (a crash): the context is better closed.
   */
  async park(): Promise<boolean> {
    const page = this.page;
    if (!page || page.isClosed()) return false;
    const popups = this.context.pages().filter((open) => open !== page);
    return Promise.all([...popups.map((popup) => popup.close()), this.leave(page)]).then(
      () => true,
      () => false,
    );
  }

  /** Navigates the page to about:blank. */
  private async leave(page: Page): Promise<void> {
    // A beforeunload prompt of the last document must not keep the page (nothing else can open a dialog here).
    const accept = (dialog: Dialog) => void dialog.accept().catch(() => undefined);
    this.context.on('dialog', accept);
    try {
      await page.goto('about:blank', { timeout: CLEAR_TIMEOUT_MS });
    } finally {
      this.context.off('dialog', accept);
    }
  }

  /** The page, cleared of what the last replay left; a new page when it cannot be cleared. */
  private async cleanPage(): Promise<Page> {
    const page = this.page;
    if (page && !this.dirty) return page;
    if (page) {
      const cleared = await this.clear(page).then(
        () => true,
        (error: unknown) => {
          log.info({ err: error }, 'the replay page could not be cleared; a new page replaces it');
          return false;
        },
      );
      if (cleared) return page;
    }
    try {
      await Promise.all(this.context.pages().map((open) => open.close()));
      this.page = await this.context.newPage();
      this.cdp = undefined;
      await this.clear(this.page);
      return this.page;
    } catch (error) {
      throw new ReplayContextResetError(error instanceof Error ? error.message : String(error), error);
    }
  }

  private async clear(page: Page): Promise<void> {
    await Promise.all(
      this.context
        .pages()
        .filter((open) => open !== page)
        .map((open) => open.close()),
    );
    await this.leave(page);
    this.cdp ??= await this.context.newCDPSession(page);
    const cdp = this.cdp;
    const origins = [new URL(this.baseUrl).origin, ...this.leftOrigins];
    const otherApp = this.leftOrigins.size > 0;
    await Promise.all([
      this.context.clearCookies(),
      ...origins.map((origin) => cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
      otherApp ? cdp.send('Network.clearBrowserCache') : undefined,
      cdp.send('Page.resetNavigationHistory'),
      page.evaluate(() => {
        window.name = '';
      }),
      this.viewport && !sameSize(page.viewportSize(), this.viewport)
        ? page.setViewportSize(this.viewport)
        : undefined,
      page.bringToFront(),
      // The page keeps its frame across same-site navigations (Chromium's RenderDocument is off,
      // workers/chromium-flags.ts), and with it the pointer's last position: the next document would be hovered
      // there. A pointer outside the viewport hovers nothing, as on a new page.
      page.mouse.move(-1, -1),
    ]);
    this.leftOrigins.clear();
  }
}

function sameSize(
  a: { width: number; height: number } | null,
  b: { width: number; height: number },
): boolean {
  return a !== null && a.width === b.width && a.height === b.height;
}
