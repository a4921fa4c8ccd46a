// Hook on every request: the signed-in user (from the session cookie) becomes ctx.user.
import { SESSION_COOKIE, userForSession } from '../accounts.js';

export const hookOrder = 0;

export function before(ctx) {
  ctx.user = userForSession(ctx.db, ctx.cookies[SESSION_COOKIE]);
}
