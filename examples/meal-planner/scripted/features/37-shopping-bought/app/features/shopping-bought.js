// Marking a shopping list item bought (struck through, listed last) or not bought again.
import { html } from '../html.js';

export const access = 'user';

export function boughtButton(item) {
  const label = item.bought ? `Mark ${item.text} as not bought` : `Mark ${item.text} as bought`;
  return html`<form method="post" action="/shopping/${item.id}/bought" class="inline"><button type="submit" aria-label="${label}">${item.bought ? 'Not bought' : 'Bought'}</button></form>`;
}

export function POST(ctx) {
  const item = ctx.db.get('SELECT * FROM shopping_items WHERE id = ? AND user_id = ?', [
    Number(ctx.params.id),
    ctx.user.id,
  ]);
  if (!item) return ctx.notFound('There is no item of yours at this address.');
  ctx.db.run('UPDATE shopping_items SET bought = ? WHERE id = ?', [item.bought ? 0 : 1, item.id]);
  ctx.redirect('/shopping');
}
