import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import type { BrowserSource } from '../evaluation/browser-source.js';
import { listScreenshots } from './browser-pool.js';

const log = moduleLogger('workers/deferred-close');

/** Work a worker finishes after a session's result is recorded; awaited before the worker (and its browser) closes. */
export interface DeferredWork {
  /** Tracks `work`; a failure is logged with `what`, never thrown. */
  add(work: Promise<unknown>, what: string): void;
  /** Resolves when everything added so far has settled. */
  drain(): Promise<void>;
  /** How many are still running. */
  readonly pending: number;
}

/** A tracker of deferred work. */
export function createDeferredWork(): DeferredWork {
  const running = new Set<Promise<unknown>>();
  return {
    add(work, what) {
      const tracked = work
        .catch((error: unknown) => log.warn({ err: error, what }, 'deferred work failed'))
        .finally(() => running.delete(tracked));
      running.add(tracked);
    },
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    get pending() {
      return running.size;
    },
  };
}

/**
 * The browser as sessions get it, with an evaluation's slow close taken off the handoff's critical path: saving
 * the Playwright trace (a zip of every action's DOM snapshots) and closing the context take a second or
 * more, and nothing in the session's result depends on them but the trace's file name, which is known. So
 * `close()` answers at once with the screenshots already on disk and the trace's path, and the real close goes on
 * in `deferred` while the result is recorded and the next session starts. Should the save fail, the verdict names
 * a trace that is not there (logged; the dashboard shows no file).
 */
export function closingInBackground(browser: BrowserSource, deferred: DeferredWork): BrowserSource {
  return {
    async acquireContext(options) {
      const evaluation = await browser.acquireContext(options);
      let closed: Promise<{ tracePath?: string; screenshots: string[] }> | undefined;
      return {
        page: evaluation.page,
        consoleMessages: evaluation.consoleMessages,
        allowOrigin: (origin) => evaluation.allowOrigin(origin),
        close() {
          closed ??= (async () => {
            const screenshots = await listScreenshots(path.resolve(options.evidenceDir));
            deferred.add(evaluation.close(), `closing the evaluation in ${options.evidenceDir}`);
            const tracePath = path.join(path.resolve(options.evidenceDir), 'trace.zip');
            return options.trace ? { tracePath, screenshots } : { screenshots };
          })();
          return closed;
        },
      };
    },
  };
}
