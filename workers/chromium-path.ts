/**
 * Which Chromium the workers launch when neither the config (`chromiumPath`) nor `NIGHTSHIFT_CHROMIUM` names one.
 * Debian's headless shell comes first: it is the old headless Chromium that Playwright itself launches by default
 * for headless runs, a browser without the full browser's window machinery. Each browser context of the full
 * Chromium in headless mode starts three renderer processes (the page's, a spare one, and a renderer for the
 * window's own WebUI) where the headless shell starts one; a new context, a page and two navigations cost about a
 * third of the CPU there (measured 2026-12-03, docs/architecture.md). The full Chromium stays the fallback.
 */
import { existsSync } from 'node:fs';

/**
 * Where Chromium is looked for, best first. Debian's `/usr/bin/chromium-headless-shell` is a shell script that
 * runs the binary as its child (without `exec`), so the binary itself comes before it: the pool's browser is
 * then the process Playwright started, and killing it ends the browser.
 */
export const CHROMIUM_CANDIDATES: readonly string[] = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
];

/** The first installed candidate; the last one (the full Chromium) when none is, so the error names it. */
export function defaultChromiumPath(exists: (file: string) => boolean = existsSync): string {
  return CHROMIUM_CANDIDATES.find((file) => exists(file)) ?? (CHROMIUM_CANDIDATES.at(-1) as string);
}

/** The Chromium a worker launches: `NIGHTSHIFT_CHROMIUM` when set, else {@link defaultChromiumPath}. */
export function chromiumExecutable(env: NodeJS.ProcessEnv = process.env): string {
  return env.NIGHTSHIFT_CHROMIUM || defaultChromiumPath();
}

/** What to run to install the default Chromium (named in the errors that say it is missing). */
export const CHROMIUM_INSTALL_COMMAND = 'apt-get install -y chromium-headless-shell';
