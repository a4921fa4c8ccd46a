// "Recipes per page" (10, 20 or 50) for the pages of "My recipes".
import { selectField } from '../forms.js';
import { html } from '../html.js';

export const access = 'user';

const SIZES = [10, 20, 50];

export function pageSizeSection(ctx) {
  const choices = SIZES.map((size) => [size, String(size)]);
  return html`<h2>Lists</h2>
<form method="post" action="/settings/page-size" aria-label="Recipes per page">
${selectField('Recipes per page', 'size', choices, ctx.user.page_size)}
<p><button type="submit">Save page size</button></p>
</form>`;
}

export function POST(ctx) {
  const size = Number(ctx.form.get('size'));
  if (!SIZES.includes(size)) return ctx.redirect('/settings', 'Choose 10, 20 or 50 recipes per page.');
  ctx.db.run('UPDATE users SET page_size = ? WHERE id = ?', [size, ctx.user.id]);
  ctx.redirect('/settings', `My recipes now shows ${size} recipes per page.`);
}
