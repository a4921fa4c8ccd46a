// Dashboard: how much is left on the shopping list.
import { html } from '../html.js';

export function shoppingWidget(ctx) {
  const { left } = ctx.db.get(
    'SELECT COUNT(*) AS left FROM shopping_items WHERE user_id = ? AND bought = 0',
    [ctx.user.id],
  );
  const text = left === 0 ? 'Nothing to buy.' : `${left} ${left === 1 ? 'item' : 'items'} to buy.`;
  return html`<section><h2>Shopping</h2><p>${text} <a href="/shopping">Open the shopping list</a></p></section>`;
}
