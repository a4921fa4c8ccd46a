import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { consoleLine } from '../agent/tools/browser-log.js';
import { moduleLogger } from '../core/log.js';
import { type BlockedRequest, type BrowserGate, startBrowserGate } from './browser-gate.js';
import { CHROMIUM_BASE_ARGS } from './chromium-flags.js';
import { chromiumExecutable } from './chromium-path.js';
import { sharedChromium } from './shared-chromium.js';

const log = moduleLogger('workers/browser-pool');

/**
 * What an evaluation's Playwright trace records: a DOM snapshot before and after every action (the trace viewer
 * renders them), not the screencast. The screencast encodes a picture of every frame the page draws: the demo's
 * recorded checks replayed in a context traced this way with it took 50–85 % more of the machine's CPU than
 * untraced, and within 7 % of untraced without it (two runs each, 2026-12-03; replays themselves are never traced). On a shared
 * worker that CPU slows every other lane's session. The model's own screenshots are kept as PNG evidence either
 * way; the trace viewer's filmstrip stays empty and canvases show blank in its snapshots.
 */
const TRACE_OPTIONS = { screenshots: false, snapshots: true } as const;

/** Console messages and page errors kept per evaluation; older ones are dropped first. */
export const MAX_CONSOLE_MESSAGES = 500;

/** Default timeout of page actions in an evaluation context (ms): a broken page fails fast. */
export const CONTEXT_ACTION_TIMEOUT_MS = 5_000;

/** Default navigation timeout in an evaluation context (ms). */
export const CONTEXT_NAVIGATION_TIMEOUT_MS = 15_000;

/** How the pool launches its browser. */
export interface BrowserPoolOptions {
  /** Chromium binary; default NIGHTSHIFT_CHROMIUM, then the headless shell or Chromium (workers/chromium-path.ts). */
  executablePath?: string;
  /** Run without a window (default true). */
  headless?: boolean;
  /** Extra Chromium flags, appended to CHROMIUM_BASE_ARGS. */
  launchArgs?: readonly string[];
  /**
   * Keep one unused context + page opened in the background for the next acquire (default true): opening
   * a page spawns a renderer, the largest part of a warm start. The spare is never used before it is handed out.
   */
  prewarm?: boolean;
}

/** What one evaluation asks of the pool. */
export interface AcquireOptions {
  /** Where the trace and screenshots of this evaluation are written (created if missing). */
  evidenceDir: string;
  /** Record a Playwright trace (DOM snapshots of every action, no screencast), saved as `<evidenceDir>/trace.zip` on close. */
  trace: boolean;
  /** Base URL for relative navigations (the app under test). */
  baseURL?: string;
  /** Called for each request of a page that the context's gate refused (it is also listed as a console line). */
  onBlocked?: (blocked: BlockedRequest) => void;
}

/** What closing an evaluation left behind in its evidence directory. */
export interface EvaluationEvidence {
  /** Absolute path of the saved trace, when tracing was on and saving succeeded. */
  tracePath?: string;
  /** Absolute paths of the PNG screenshots in the evidence directory, sorted by name. */
  screenshots: string[];
}

/** A fresh, isolated browser context for one evaluation, with its page and collected console output. */
export interface EvaluationContext {
  context: BrowserContext;
  page: Page;
  evidenceDir: string;
  /** Console messages, uncaught page errors and blocked requests so far (live array, oldest first, capped). */
  consoleMessages: readonly string[];
  /**
   * Lets the context reach this origin (`http://host:port`, the app under test) and nothing else. Until it is
   * called every request of the context is refused.
   */
  allowOrigin(origin: string): void;
  /** Saves the trace, closes the context and lists the evidence. Never throws; safe to call twice. */
  close(): Promise<EvaluationEvidence>;
}

/** One Chromium per worker process, shared by every evaluation that process runs. */
export interface BrowserPool {
  /** A new context (no cookies or storage from earlier evaluations) on the shared browser, launching it if needed. */
  acquireContext(options: AcquireOptions): Promise<EvaluationContext>;
  /** How many times this pool has launched Chromium (1 unless it crashed or was closed underneath us). */
  readonly launches: number;
  /** Closes the browser; later acquires fail. */
  close(): Promise<void>;
}

/** Creates a pool that launches Chromium lazily and relaunches it after a crash or disconnect. */
export function createBrowserPool(options: BrowserPoolOptions = {}): BrowserPool {
  const chromium = sharedChromium({
    executablePath: options.executablePath ?? chromiumExecutable(),
    args: [...CHROMIUM_BASE_ARGS, ...(options.launchArgs ?? [])],
    headless: options.headless ?? true,
  });
  const prewarm = options.prewarm ?? true;
  let spare: Spare | undefined;
  return {
    get launches() {
      return chromium.launches;
    },
    async acquireContext(acquire) {
      const browser = await chromium.connected();
      const taken = spare;
      spare = undefined;
      const opened =
        (await takeSpare(taken, browser, acquire.baseURL)) ?? (await openPage(browser, acquire.baseURL));
      // The spare opens once this evaluation is over, so it never competes with the evaluation for CPU.
      const afterClose = () => {
        if (prewarm && !chromium.closed && !spare && browser.isConnected())
          spare = prepareSpare(browser, acquire.baseURL, acquire.trace);
      };
      return startEvaluation(opened, acquire, afterClose);
    },
    async close() {
      spare = undefined; // closing the browser closes it too
      await chromium.close();
    },
  };
}

/** A fresh context and its page, not yet handed to any evaluation. */
interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** The context's proxy: the only way out of it (closed with the context). */
  gate: BrowserGate;
  /** Tracing already started (a spare starts it ahead, off the next evaluation's start). */
  tracing?: boolean;
}

/** A context opened ahead of time (after an evaluation closed) for the next acquire with the same baseURL. */
interface Spare {
  baseURL: string | undefined;
  ready: Promise<OpenedPage | undefined>;
}

async function openPage(browser: Browser, baseURL: string | undefined): Promise<OpenedPage> {
  const gate = await startBrowserGate();
  let context: BrowserContext;
  try {
    context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      ...(baseURL ? { baseURL } : {}),
      // `<-loopback>`: Chromium sends even 127.0.0.1 (the app, and any other local server) through the gate.
      proxy: { server: gate.server, bypass: '<-loopback>' },
      // A download would be written to the host's disk, as large as the app likes: refused.
      acceptDownloads: false,
    });
  } catch (error) {
    await gate.close();
    throw error;
  }
  context.once('close', () => void gate.close());
  context.setDefaultTimeout(CONTEXT_ACTION_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(CONTEXT_NAVIGATION_TIMEOUT_MS);
  try {
    return { context, page: await context.newPage(), gate };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

function prepareSpare(browser: Browser, baseURL: string | undefined, trace: boolean): Spare {
  const ready = openPage(browser, baseURL)
    .then(async (opened): Promise<OpenedPage> => {
      if (!trace) return opened;
      await opened.context.tracing.start(TRACE_OPTIONS).catch(async (error: unknown) => {
        await opened.context.close().catch(() => undefined);
        throw error;
      });
      return { ...opened, tracing: true };
    })
    .catch((error: unknown) => {
      log.debug({ err: error }, 'preparing a spare browser context failed');
      return undefined;
    });
  return { baseURL, ready };
}

/** The spare when it is usable for this acquire; otherwise it is closed and undefined returned. */
async function takeSpare(
  spare: Spare | undefined,
  browser: Browser,
  baseURL: string | undefined,
): Promise<OpenedPage | undefined> {
  if (!spare) return undefined;
  const opened = await spare.ready;
  if (!opened) return undefined;
  const usable = spare.baseURL === baseURL && opened.context.browser() === browser && !opened.page.isClosed();
  if (usable) return opened;
  await opened.context.close().catch(() => undefined);
  return undefined;
}

/** Turns a fresh page into an evaluation: evidence dir, tracing from here on, console collection. */
async function startEvaluation(
  opened: OpenedPage,
  options: AcquireOptions,
  afterClose: () => void,
): Promise<EvaluationContext> {
  const { context, page, gate } = opened;
  const evidenceDir = path.resolve(options.evidenceDir);
  try {
    await mkdir(evidenceDir, { recursive: true });
    if (options.trace && !opened.tracing) await context.tracing.start(TRACE_OPTIONS);
    if (!options.trace && opened.tracing) await context.tracing.stop();
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
  const { messages: consoleMessages, push } = collectConsole(context, page);
  gate.onBlocked((blocked) => {
    push(`[blocked] ${blocked.method} ${blocked.target}: ${blocked.reason}`);
    options.onBlocked?.(blocked);
  });
  let closing: Promise<EvaluationEvidence> | undefined;
  return {
    context,
    page,
    evidenceDir,
    consoleMessages,
    allowOrigin: (origin) => gate.allow(origin),
    close() {
      closing ??= closeEvaluation(context, evidenceDir, options.trace).finally(afterClose);
      return closing;
    },
  };
}

/**
 * Records console messages and uncaught errors of the page, and of every page it opens later (popups, new tabs),
 * as one line each; `push` adds a line of the harness's.
 */
function collectConsole(
  context: BrowserContext,
  page: Page,
): { messages: string[]; push: (line: string) => void } {
  const messages: string[] = [];
  const push = (line: string) => {
    messages.push(line);
    if (messages.length > MAX_CONSOLE_MESSAGES) messages.splice(0, messages.length - MAX_CONSOLE_MESSAGES);
  };
  const watch = (watched: Page) => {
    watched.on('console', (message) => push(consoleLine(message)));
    watched.on('pageerror', (error) => push(`[pageerror] ${error.message}`));
    watched.on('crash', () => push('[crash] the page crashed'));
  };
  watch(page);
  context.on('page', watch);
  return { messages, push };
}

async function closeEvaluation(
  context: BrowserContext,
  evidenceDir: string,
  trace: boolean,
): Promise<EvaluationEvidence> {
  let tracePath: string | undefined;
  if (trace) {
    const target = path.join(evidenceDir, 'trace.zip');
    try {
      await context.tracing.stop({ path: target });
      tracePath = target;
    } catch (error) {
      log.warn({ err: error, evidenceDir }, 'saving the playwright trace failed');
    }
  }
  await context
    .close()
    .catch((error: unknown) => log.warn({ err: error }, 'closing the browser context failed'));
  const screenshots = await listScreenshots(evidenceDir);
  return tracePath ? { tracePath, screenshots } : { screenshots };
}

/** The PNG screenshots in an evidence directory, sorted by name (absolute paths). */
export async function listScreenshots(evidenceDir: string): Promise<string[]> {
  const names = await readdir(evidenceDir).catch(() => [] as string[]);
  return names
    .filter((name) => name.endsWith('.png'))
    .sort()
    .map((name) => path.join(evidenceDir, name));
}
