import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { InputError } from '../core/errors.js';

/** The cookie that carries the dashboard token after a `?token=` first load. */
export const TOKEN_COOKIE = 'nightshift_dashboard_token';

/** The Content-Security-Policy of every page but bull-board: no inline script or style, nothing from elsewhere. */
export const STRICT_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/**
 * bull-board's prebuilt UI uses inline style attributes and a `<base href>`; it gets inline styles and `base-uri
 * 'self'`, still no inline or foreign script (its external fonts stay blocked, so it works the same offline).
 */
export const QUEUES_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'";

/** Raised when the dashboard would listen beyond loopback without a token. */
export class DashboardTokenRequiredError extends InputError {
  constructor(host: string) {
    super('DASHBOARD_TOKEN_REQUIRED', `The dashboard refuses to listen on ${host} without a token.`, {
      hint: 'Set NIGHTSHIFT_DASHBOARD_TOKEN (16+ random characters, e.g. `openssl rand -hex 24`) or bind 127.0.0.1.',
    });
  }
}

/** True when `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** Throws DashboardTokenRequiredError when `host` is not loopback and there is no token. */
export function assertTokenPolicy(host: string, token: string | undefined): void {
  if (!isLoopbackHost(host) && !token) throw new DashboardTokenRequiredError(host);
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function bearer(c: Context): string | undefined {
  const header = c.req.header('authorization');
  const match = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
  return match?.[1]?.trim();
}

/** Security headers on every response; `/queues` gets bull-board's CSP. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const queues = c.req.path === '/queues' || c.req.path.startsWith('/queues/');
    c.header('Content-Security-Policy', queues ? QUEUES_CSP : STRICT_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
  };
}

/**
 * Without a token (loopback only): refuses Host headers that are not loopback names, so a DNS-rebinding page cannot
 * reach the API through the user's browser.
 */
export function loopbackHostGuard(): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
    if (!isLoopbackHost(name))
      return c.json({ error: 'forbidden', message: `Host "${host}" is not allowed.` }, 403);
    await next();
  };
}

/**
 * Token check on every request: `Authorization: Bearer <token>`, or the HttpOnly cookie. A `?token=` on a page load
 * sets that cookie and redirects to the same URL without it, so the token does not stay in the address bar.
 */
export function tokenGuard(token: string): MiddlewareHandler {
  return async (c, next) => {
    const fromQuery = c.req.query('token');
    if (fromQuery !== undefined && c.req.method === 'GET' && sameSecret(fromQuery, token)) {
      setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    const given = bearer(c) ?? getCookie(c, TOKEN_COOKIE);
    if (given === undefined || !sameSecret(given, token)) {
      return c.json(
        { error: 'unauthorized', message: 'A dashboard token is required: open the URL with ?token=… once.' },
        401,
      );
    }
    await next();
  };
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/**
 * CSRF guard for state-changing requests: a browser request must come from this origin (Origin header, else
 * Sec-Fetch-Site). Requests without either come from non-browser clients, which cannot be driven cross-site.
 */
export function sameOriginGuard(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') return next();
    const origin = c.req.header('origin');
    const site = c.req.header('sec-fetch-site');
    const host = c.req.header('host');
    let allowed: boolean;
    if (origin !== undefined) allowed = host !== undefined && originHost(origin) === host;
    else if (site !== undefined) allowed = site === 'same-origin' || site === 'none';
    else allowed = true;
    if (!allowed) {
      return c.json({ error: 'forbidden', message: 'Cross-origin requests may not change runs.' }, 403);
    }
    await next();
  };
}
