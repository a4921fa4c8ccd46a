/**
 * Where a recorded check may navigate: a path on the app, never another origin. A URL the evaluator visited is
 * resolved with the WHATWG parser (the one browsers and Playwright use) against the app's origin, kept only when
 * it is still on that origin, and stored as `/path?query#hash`. A path that begins with two slashes (`//host`,
 * also what `/\host` and `/<tab>/host` become) would read as another host once written on its own, so it is
 * stored as `/.//host`, which resolves back to the same page on the app (the parser's own way of writing it).
 */

/** The origin stored paths are checked against: any http origin resolves a path the same way. */
export const STORED_PATH_ORIGIN = 'http://app.nightshift.invalid/';

/**
 * The app-relative form (`/path?query#hash`) of `url` resolved against `baseUrl`, or null when it leaves the
 * app's origin (another host, port or scheme, `javascript:`, a protocol-relative `//host`, `/\host`…) or does
 * not parse.
 */
export function appPathOf(url: string, baseUrl: string): string | null {
  let base: URL;
  let resolved: URL;
  try {
    base = new URL(baseUrl);
    resolved = new URL(url, base);
  } catch {
    return null;
  }
  if (resolved.origin !== base.origin || resolved.username !== '' || resolved.password !== '') return null;
  const pathname = resolved.pathname.startsWith('//') ? `/.${resolved.pathname}` : resolved.pathname;
  const path = `${pathname}${resolved.search}${resolved.hash}`;
  // Re-checked after resolution: the stored text, resolved again against any origin, stays on it.
  return staysOnOrigin(path, base) && staysOnOrigin(path, new URL(STORED_PATH_ORIGIN)) ? path : null;
}

/** True when `path` starts with one `/` and resolves to a URL on `base`'s origin. */
function staysOnOrigin(path: string, base: URL): boolean {
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return false;
  try {
    return new URL(path, base).origin === base.origin;
  } catch {
    return false;
  }
}

/** True when `path` is a stored app path already in its canonical form. */
export function isAppPath(path: string): boolean {
  return appPathOf(path, STORED_PATH_ORIGIN) === path;
}
