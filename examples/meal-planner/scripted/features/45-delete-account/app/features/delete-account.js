// Deleting your account (password, then a question): every row of yours in every table goes, and you are logged out.
import { endSession, passwordMatches } from '../accounts.js';
import { html } from '../html.js';

export const access = 'user';

const QUESTION = 'Delete your account and all your recipes, plans and lists? This cannot be undone.';

/** What belongs to a user, table by table (rows pointing at their recipes first). */
const OWN_ROWS = [
  'DELETE FROM favourites WHERE recipe_id IN (SELECT id FROM recipes WHERE user_id = ?)',
  'DELETE FROM comments WHERE recipe_id IN (SELECT id FROM recipes WHERE user_id = ?)',
  'DELETE FROM ratings WHERE recipe_id IN (SELECT id FROM recipes WHERE user_id = ?)',
  'DELETE FROM plan_entries WHERE recipe_id IN (SELECT id FROM recipes WHERE user_id = ?)',
  'DELETE FROM favourites WHERE user_id = ?',
  'DELETE FROM comments WHERE user_id = ?',
  'DELETE FROM ratings WHERE user_id = ?',
  'DELETE FROM plan_entries WHERE user_id = ?',
  'DELETE FROM shopping_items WHERE user_id = ?',
  'DELETE FROM recipes WHERE user_id = ?',
  'DELETE FROM sessions WHERE user_id = ?',
  'DELETE FROM users WHERE id = ?',
];

export function deleteAccountSection() {
  return html`<h2>Delete account</h2>
<form method="post" action="/settings/delete" aria-label="Delete account" data-confirm="${QUESTION}">
<p><label for="delete-password">Password to confirm</label> <input id="delete-password" name="password" type="password"></p>
<p><button type="submit">Delete my account</button></p>
</form>`;
}

export function POST(ctx) {
  if (!passwordMatches(ctx.form.get('password') ?? '', ctx.user.password_hash)) {
    return ctx.redirect('/settings', 'The password is wrong; your account is still there.');
  }
  const id = ctx.user.id;
  ctx.db.transaction(() => {
    for (const statement of OWN_ROWS) ctx.db.run(statement, [id]);
  });
  endSession(ctx);
  ctx.redirect('/', 'Your account and all your data are deleted.');
}
