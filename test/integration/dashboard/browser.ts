// Real Chromium for the dashboard tests (never downloaded: /usr/bin/chromium or $NIGHTSHIFT_CHROMIUM).
import { type Browser, chromium, type Page } from 'playwright-core';

/** Launch flags for a quiet, offline, container-friendly Chromium. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.NIGHTSHIFT_CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
}

/** Pages that record Content-Security-Policy violations from their console, for the dashboard UI tests. */
export interface WatchedPages {
  /** CSP violation messages seen so far (a test may drop expected ones). */
  csp: string[];
  /** Opens a new page at `url`, watched. */
  open(url: string, viewport?: { width: number; height: number }): Promise<Page>;
  /** Closes the last page opened. */
  closeLast(): Promise<void>;
}

/** Opens watched pages on the browser `browser()` returns (called when a page opens, after beforeAll). */
export function watchedPages(browser: () => Browser): WatchedPages {
  const csp: string[] = [];
  let last: Page | undefined;
  return {
    csp,
    async open(url, viewport) {
      last = await browser().newPage(viewport ? { viewport } : {});
      last.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) csp.push(message.text());
      });
      await last.goto(url);
      return last;
    },
    async closeLast() {
      await last?.close();
    },
  };
}

/** A PNG screenshot of a small page rendered from `html` (evidence for seeded verdicts). */
export async function pngOf(
  browser: Browser,
  html: string,
  viewport: { width: number; height: number },
): Promise<Buffer> {
  const page = await browser.newPage({ viewport });
  try {
    await page.setContent(html);
    return await page.screenshot();
  } finally {
    await page.close();
  }
}
