/**
 * Replay contexts kept open from one app's replays to the next (a pass gate's, a merge step's, a sweep's): a new
 * context with its page and first navigation costs about 400 ms of CPU and 250 ms here, a kept one cleared for the
 * next app about 170 ms and 100 ms (2-core machine, 20 of each). A kept context is cleared as between a sweep's checks, and
 * also of the last app's storage and the browser's HTTP cache (checks/replay-context.ts). At most
 * {@link KEPT_REPLAY_CONTEXTS} wait per browser, each on a blank page, closed after {@link IDLE_CLOSE_MS} unused.
 */
import type { RecordedCheck } from '../checks/format.js';
import type { ReplayResult } from '../checks/replay.js';
import { ReplayContextResetError, ReusedReplayContext } from '../checks/replay-context.js';
import { moduleLogger } from '../core/log.js';
import type { BrowserSource } from './browser-source.js';

const log = moduleLogger('evaluation/kept-replay-contexts');

/** Most contexts kept waiting per browser (a worker's evaluations and its merge step at once). */
export const KEPT_REPLAY_CONTEXTS = 3;

/** A kept context unused this long is closed (its renderer's memory back to the machine). */
export const IDLE_CLOSE_MS = 60_000;

type BlockedListener = NonNullable<Parameters<BrowserSource['acquireContext']>[0]['onBlocked']>;
type SourceContext = Awaited<ReturnType<BrowserSource['acquireContext']>>;

/** One context of the browser, the replays' view of it, and who hears of its refused requests now. */
interface Kept {
  source: SourceContext;
  reused: ReusedReplayContext;
  listener: { current: BlockedListener | undefined };
  idleTimer?: NodeJS.Timeout;
}

/** A replay context lent for the replays of one app. */
export interface LentReplayContext {
  /** Replays the check on the context's page, cleared first. */
  replay(check: RecordedCheck, options?: { screenshotDir?: string }): Promise<ReplayResult>;
  /** Gives the context back: kept for the next app, or closed (broken, or enough are kept). */
  release(): Promise<void>;
}

/** The contexts kept for one browser source. */
export class KeptReplayContexts {
  private readonly idle: Kept[] = [];

  constructor(
    private readonly browser: BrowserSource,
    private readonly limits = { keep: KEPT_REPLAY_CONTEXTS, idleCloseMs: IDLE_CLOSE_MS },
  ) {}

  /**
   * A context for the app at `baseUrl` (a kept one, or a new one): it reaches that origin only, and its refused
   * requests go to `onBlocked` until it is released.
   */
  async lend(
    baseUrl: string,
    options: { evidenceDir: string; onBlocked?: BlockedListener },
  ): Promise<LentReplayContext> {
    const kept = this.takeIdle();
    const lent = kept ?? (await this.open(baseUrl, options.evidenceDir));
    try {
      lent.source.allowOrigin(baseUrl);
      if (kept) lent.reused.retarget(baseUrl);
    } catch (error) {
      await this.close(lent);
      throw error;
    }
    lent.listener.current = options.onBlocked;
    let broken = false;
    let released = false;
    return {
      replay: async (check, replayOptions = {}) => {
        try {
          return await lent.reused.replay(check, replayOptions);
        } catch (error) {
          if (error instanceof ReplayContextResetError) broken = true;
          throw error;
        }
      },
      release: async () => {
        if (released) return;
        released = true;
        lent.listener.current = undefined;
        await this.keepOrClose(lent, broken);
      },
    };
  }

  /** Closes the contexts waiting (a worker stopping; the browser's close would close them too). */
  async closeIdle(): Promise<void> {
    const waiting = this.idle.splice(0);
    await Promise.all(waiting.map((kept) => this.close(kept)));
  }

  private async open(baseUrl: string, evidenceDir: string): Promise<Kept> {
    const listener: Kept['listener'] = { current: undefined };
    const source = await this.browser.acquireContext({
      evidenceDir,
      trace: false,
      onBlocked: (blocked) => listener.current?.(blocked),
    });
    return { source, reused: new ReusedReplayContext(source.page.context(), baseUrl, source.page), listener };
  }

  private takeIdle(): Kept | undefined {
    for (let kept = this.idle.pop(); kept; kept = this.idle.pop()) {
      clearTimeout(kept.idleTimer);
      if (usable(kept)) return kept;
      void this.close(kept);
    }
    return undefined;
  }

  /** Back to the waiting ones on a blank page (nothing of the last app runs while it waits), or closed. */
  private async keepOrClose(kept: Kept, broken: boolean): Promise<void> {
    const parked =
      !broken && this.idle.length < this.limits.keep && usable(kept) && (await kept.reused.park());
    if (!parked || this.idle.length >= this.limits.keep) {
      await this.close(kept);
      return;
    }
    kept.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(kept);
      if (at >= 0) this.idle.splice(at, 1);
      void this.close(kept);
    }, this.limits.idleCloseMs);
    kept.idleTimer.unref();
    this.idle.push(kept);
  }

  private async close(kept: Kept): Promise<void> {
    clearTimeout(kept.idleTimer);
    await kept.source
      .close()
      .catch((error: unknown) => log.debug({ err: error }, 'closing a kept context failed'));
  }
}

/** The context's browser is still there and its page open. */
function usable(kept: Kept): boolean {
  const context = kept.reused.browserContext;
  return context.browser()?.isConnected() === true && context.pages().some((page) => !page.isClosed());
}

const KEPT_BY_BROWSER = new WeakMap<BrowserSource, KeptReplayContexts>();

/** The replay contexts kept for this browser source (a worker's shared browser): one set per source. */
export function keptReplayContexts(browser: BrowserSource): KeptReplayContexts {
  let kept = KEPT_BY_BROWSER.get(browser);
  if (!kept) {
    kept = new KeptReplayContexts(browser);
    KEPT_BY_BROWSER.set(browser, kept);
  }
  return kept;
}
