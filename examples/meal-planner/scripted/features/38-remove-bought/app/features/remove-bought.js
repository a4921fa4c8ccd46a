// "Remove bought items" (the button asks first), and the line saying how much is left to buy.
import { actionButton } from '../forms.js';
import { html } from '../html.js';

export const access = 'user';

export function boughtTools(items) {
  const left = items.filter((item) => !item.bought).length;
  const status = left === 0 ? 'Nothing left to buy.' : `${left} ${left === 1 ? 'item' : 'items'} to buy.`;
  const bought = items.length - left;
  const button = bought
    ? actionButton(
        '/shopping/remove-bought',
        'Remove bought items',
        'Remove every bought item from the list?',
      )
    : '';
  return html`<p class="left">${status}</p>${button}`;
}

export function POST(ctx) {
  const { count } = ctx.db.get(
    'SELECT COUNT(*) AS count FROM shopping_items WHERE user_id = ? AND bought = 1',
    [ctx.user.id],
  );
  ctx.db.run('DELETE FROM shopping_items WHERE user_id = ? AND bought = 1', [ctx.user.id]);
  ctx.redirect('/shopping', `Removed ${count} bought ${count === 1 ? 'item' : 'items'}.`);
}
