// Hook on every request: a page that needs an account sends a signed-out visitor to the log-in page, which brings
// them back to where they were going afterwards.
import { html } from '../html.js';

export const hookOrder = 10;

export function before(ctx) {
  if (ctx.handler?.access !== 'user' || ctx.user) return;
  const next = `${ctx.url.pathname}${ctx.url.search}`;
  if (ctx.method !== 'GET') {
    return ctx.render(
      'Please log in',
      html`<h1>Please log in</h1><p>Your session has ended. Log in and try again.</p>`,
      401,
    );
  }
  ctx.redirect(`/login?next=${encodeURIComponent(next)}`, 'Please log in to see that page.');
}

/** Where to go after logging in: a path on this site only (never another site). */
export function safeNext(next) {
  const local =
    typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\');
  return local ? next : undefined;
}
