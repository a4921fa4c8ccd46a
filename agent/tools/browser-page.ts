import type { Locator, Page, Request } from 'playwright-core';
import { truncateMiddle } from '../../core/truncate.js';
import { ToolError } from '../tool.js';

/** Timeout of one page action (click, fill, key press, select) in ms: a broken page fails fast. */
export const ACTION_TIMEOUT_MS = 5_000;

/** Timeout of a navigation started by `browser_navigate` in ms. */
export const NAVIGATION_TIMEOUT_MS = 15_000;

/** Longest a `browser_wait_for` may wait, in ms. */
export const MAX_WAIT_MS = 10_000;

/** Bytes of aria snapshot sent to the model; longer snapshots keep their head and tail. */
export const SNAPSHOT_MAX_BYTES = 24_000;

/** Longest we wait after an action for the requests it started to finish, in ms. */
const SETTLE_MAX_MS = 3_000;

/**
 * The aria snapshot of the page in Playwright's AI mode: YAML with `[ref=eN]` on elements.
 * `page.ariaSnapshot({ mode: 'ai' })` is public API since playwright 1.5x; refs resolve with `page.getByRef`.
 */
export async function ariaSnapshotForAI(page: Page): Promise<string> {
  return page.ariaSnapshot({ mode: 'ai', timeout: ACTION_TIMEOUT_MS });
}

/** URL, title and the (possibly truncated) aria snapshot of the page, as the model sees it. */
export async function describePage(page: Page): Promise<string> {
  const snapshot = await ariaSnapshotForAI(page);
  const cut = truncateMiddle(snapshot, SNAPSHOT_MAX_BYTES, 'the snapshot');
  const title = await page.title().catch(() => '');
  return [`Page URL: ${page.url()}`, `Page title: ${title}`, 'Snapshot:', cut.text].join('\n');
}

/** Accepts `e5`, `f1e3`, and the forms models tend to copy from a snapshot (`[ref=e5]`, `ref=e5`). */
export function normalizeRef(raw: string): string {
  const ref = raw
    .trim()
    .replace(/^\[?(?:ref=)?/, '')
    .replace(/\]$/, '');
  if (!/^(?:f\d+)?e\d+$/.test(ref)) {
    throw new ToolError(
      `"${raw}" is not an element ref. Use a ref such as e5 exactly as it appears in the latest snapshot ([ref=e5]).`,
    );
  }
  return ref;
}

/** The element a snapshot ref points to; a clear tool error when the ref is unknown or stale. */
export async function resolveRef(page: Page, rawRef: string): Promise<Locator> {
  const ref = normalizeRef(rawRef);
  const locator = page.getByRef(ref);
  const count = await locator.count().catch(() => 0);
  if (count === 0) {
    throw new ToolError(
      `No element with ref ${ref} on the page now: the page changed since that snapshot or the ref is wrong. ` +
        'Call browser_snapshot for fresh refs and use one from it.',
    );
  }
  return locator;
}

/** Origins (`scheme://host:port`) from URLs or origins; unparseable entries are dropped. */
export function normalizeOrigins(origins: readonly string[]): string[] {
  const result: string[] = [];
  for (const origin of origins) {
    try {
      result.push(new URL(origin).origin);
    } catch {
      // An unparseable origin allows nothing.
    }
  }
  return result;
}

/**
 * The absolute URL to navigate to, when it is http(s) on an allowed origin. Relative URLs resolve against
 * the current page when it is on an allowed origin, else against the first allowed origin.
 */
export function checkNavigationTarget(
  raw: string,
  allowedOrigins: readonly string[],
  currentUrl: string,
): URL {
  if (allowedOrigins.length === 0) {
    throw new ToolError('Navigation is disabled: no app origin is configured for this session.');
  }
  const current = safeUrl(currentUrl);
  const base = current && allowedOrigins.includes(current.origin) ? current.href : allowedOrigins[0];
  const url = safeUrl(raw.trim(), base);
  if (!url) throw new ToolError(`"${raw}" is not a valid URL.`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(
      `Refused: only http(s) URLs of the app under test may be opened, not ${url.protocol} URLs. Allowed: ${allowedOrigins.join(', ')}.`,
    );
  }
  if (!allowedOrigins.includes(url.origin)) {
    throw new ToolError(
      `Refused: ${url.origin} is not the app under test. You may only open pages on ${allowedOrigins.join(', ')}.`,
    );
  }
  return url;
}

function safeUrl(raw: string, base?: string): URL | undefined {
  try {
    return new URL(raw, base);
  } catch {
    return undefined;
  }
}

/**
 * Runs a page action, then waits (bounded) for the requests it started and one rendered frame, so the
 * snapshot taken next shows the page after the app has reacted (e.g. a fetch and a re-render).
 */
export async function actAndSettle(page: Page, action: () => Promise<void>): Promise<void> {
  const pending = new Set<Request>();
  const watch: IdleWatch = {};
  // An EventSource never finishes; waiting for it would cost every action the full settle time.
  const started = (request: Request) => {
    if (request.resourceType() !== 'eventsource') pending.add(request);
  };
  const ended = (request: Request) => {
    pending.delete(request);
    if (pending.size === 0) watch.onIdle?.();
  };
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  try {
    await action();
    const deadline = Date.now() + SETTLE_MAX_MS;
    // Loop: a finished request often triggers the next one (POST, then GET the list).
    do {
      await untilIdle(pending, deadline, watch);
      await nextFrame(page);
    } while (pending.size > 0 && Date.now() < deadline);
  } finally {
    page.off('request', started);
    page.off('requestfinished', ended);
    page.off('requestfailed', ended);
  }
}

/** Told when the last pending request of an action ends. */
interface IdleWatch {
  onIdle?: (() => void) | undefined;
}

/** Resolves when no request is pending (at the moment the last one ends, not at a poll), or at the deadline. */
function untilIdle(pending: ReadonlySet<Request>, deadline: number, watch: IdleWatch): Promise<void> {
  if (pending.size === 0 || Date.now() >= deadline) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      watch.onIdle = undefined;
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
    watch.onIdle = done;
  });
}

/** One rendered frame and a task after it (the app's render after a fetch resolves has run by then). */
export async function nextFrame(page: Page): Promise<void> {
  await page.waitForLoadState('domcontentloaded', { timeout: SETTLE_MAX_MS }).catch(() => undefined);
  await page
    .evaluate(
      () =>
        new Promise<void>((resolve) => {
          // rAF then a task: the app's render after a fetch resolves has run by then. The timer bounds hidden pages.
          const timer = setTimeout(resolve, 100);
          requestAnimationFrame(() =>
            setTimeout(() => {
              clearTimeout(timer);
              resolve();
            }, 0),
          );
        }),
    )
    .catch(() => undefined); // a navigation destroying the context is fine here
}

/** Turns a Playwright error into a short tool error: no ANSI colours, call log cut, a hint on timeouts. */
export function toToolError(error: unknown, what: string): ToolError {
  if (error instanceof ToolError) return error;
  const raw = error instanceof Error ? error.message : String(error);
  const text = raw.replace(/\u001b\[[0-9;]*m/g, '');
  const [head = text, callLog = ''] = text.split(/\nCall log:\n/);
  const logLines = callLog
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(-4);
  const parts = [`${what} failed: ${head.trim()}`];
  if (logLines.length) parts.push(`Playwright log:\n${logLines.join('\n')}`);
  if (/Timeout \d+ms exceeded/i.test(head)) {
    parts.push(
      'The element may be hidden, disabled, covered or gone; take a new snapshot to check the page.',
    );
  }
  if (/Target (page, context or browser )?(has been )?closed|browser has disconnected/i.test(head)) {
    parts.push('The browser page is gone; the check cannot continue (report it as blocked).');
  }
  return new ToolError(parts.join('\n'));
}
