// Logging out ends the session (the token is deleted, the cookie cleared).
import { endSession } from '../accounts.js';

export function POST(ctx) {
  endSession(ctx);
  ctx.redirect('/', 'You are logged out.');
}
