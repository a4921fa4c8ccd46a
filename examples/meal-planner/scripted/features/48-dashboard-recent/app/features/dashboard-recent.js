// Dashboard: the three recipes added last.
import { html } from '../html.js';

export function recentWidget(ctx) {
  const recipes = ctx.db.all(
    'SELECT id, title FROM recipes WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT 3',
    [ctx.user.id],
  );
  if (recipes.length === 0) return '';
  const items = recipes.map((recipe) => html`<li><a href="/recipes/${recipe.id}">${recipe.title}</a></li>`);
  return html`<section><h2>Recently added</h2><ul aria-label="Recently added">${items}</ul></section>`;
}
