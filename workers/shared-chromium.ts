/**
 * The one Chromium of a browser pool: launched lazily, launched again after a crash or disconnect, and the
 * errors that say why it could not be had.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { CHROMIUM_INSTALL_COMMAND } from './chromium-path.js';

const log = moduleLogger('workers/shared-chromium');

/** The Chromium executable does not exist: nothing to launch. */
export class BrowserNotInstalledError extends NightshiftError {
  constructor(executablePath: string) {
    super('BROWSER_NOT_INSTALLED', `No Chromium executable at ${executablePath}.`, {
      hint: `Install it with \`${CHROMIUM_INSTALL_COMMAND}\`, or set NIGHTSHIFT_CHROMIUM to the path of a Chromium binary.`,
    });
  }
}

/** Chromium exists but did not start (or the pool was closed). */
export class BrowserLaunchError extends NightshiftError {
  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super('BROWSER_LAUNCH_FAILED', message, options);
  }
}

/** The one Chromium of a pool: launched on first use, launched again after a crash or disconnect. */
export interface SharedChromium {
  /** The browser, connected (launched now when there is none). */
  connected(): Promise<Browser>;
  /** How many times it was launched. */
  readonly launches: number;
  /** Whether it was closed for good. */
  readonly closed: boolean;
  /** Closes it; later `connected` calls fail. */
  close(): Promise<void>;
}

/** The pool's Chromium: one launch at a time, forgotten when it disconnects so the next use relaunches it. */
export function sharedChromium(launch: {
  executablePath: string;
  args: string[];
  headless: boolean;
}): SharedChromium {
  const { executablePath } = launch;
  let browserPromise: Promise<Browser> | undefined;
  let launches = 0;
  let closed = false;

  function launchOnce(): Promise<Browser> {
    if (!existsSync(executablePath)) return Promise.reject(new BrowserNotInstalledError(executablePath));
    launches += 1;
    const promise = launchChromium(launch, launches).then(
      (browser) => {
        browser.on('disconnected', () => {
          if (!closed) log.warn({ launches }, 'chromium disconnected; the next evaluation relaunches it');
          if (browserPromise === promise) browserPromise = undefined;
        });
        return browser;
      },
      (error: unknown) => {
        if (browserPromise === promise) browserPromise = undefined;
        throw error;
      },
    );
    browserPromise = promise;
    return promise;
  }

  return {
    get launches() {
      return launches;
    },
    get closed() {
      return closed;
    },
    async connected() {
      // Two tries: a browser can disconnect between our launch and our use of it.
      for (let attempt = 0; ; attempt += 1) {
        if (closed)
          throw new BrowserLaunchError('The browser pool is closed.', { hint: 'Create a new pool.' });
        const pending = browserPromise ?? launchOnce();
        const browser = await pending;
        if (browser.isConnected()) return browser;
        if (browserPromise === pending) browserPromise = undefined;
        if (attempt >= 1)
          throw new BrowserLaunchError(`Chromium at ${executablePath} disconnected right after launch.`);
      }
    },
    async close() {
      closed = true;
      const pending = browserPromise;
      browserPromise = undefined;
      const browser = pending ? await pending.catch(() => undefined) : undefined;
      await browser?.close().catch((error: unknown) => log.warn({ err: error }, 'closing chromium failed'));
    },
  };
}

/**
 * Loads playwright-core now. A worker does it before it takes its first job: the import is synchronous work of about
 * a second (0.9–1.2 s per worker process in the lanes bench), and taken at the first evaluation it froze every other
 * session of the process (their git, their model requests) for that long.
 */
export async function preloadPlaywright(): Promise<void> {
  await import('playwright-core');
}

/** Launches Chromium once (the pool's `launches`-th time); a failure is a {@link BrowserLaunchError} with a hint. */
async function launchChromium(
  launch: { executablePath: string; args: string[]; headless: boolean },
  launches: number,
): Promise<Browser> {
  const { executablePath } = launch;
  const started = Date.now();
  // Loaded on the first launch (a worker preloads it, {@link preloadPlaywright}): most commands never launch a browser.
  // Playwright's own signal handlers are off: on SIGINT it would close every browser and exit the process
  // (130) before the CLI could pause the run and checkpoint. Its Chromium has a process group of its own, so a
  // terminal's Ctrl-C reaches only the CLI, which closes the pool when it is done.
  try {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      ...launch,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    log.info({ executablePath, ms: Date.now() - started, launches }, 'chromium launched');
    return browser;
  } catch (error) {
    throw new BrowserLaunchError(`Chromium at ${executablePath} did not start: ${firstLine(error)}`, {
      hint: 'Run `nightshift doctor`; check that the binary runs (`chromium --version`) and has its libraries.',
      cause: error,
    });
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
