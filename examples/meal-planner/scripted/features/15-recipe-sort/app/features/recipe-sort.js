// Hook on /recipes: "Sort by" newest first (the default), oldest first, title A–Z or quickest first.
import { selectField } from '../forms.js';
import { recipeListOptions } from './my-recipes.js';

const ORDERS = {
  newest: ['Newest first', []],
  oldest: ['Oldest first', ['created_at ASC', 'id ASC']],
  title: ['Title A–Z', ['title COLLATE NOCASE ASC']],
  quickest: ['Quickest first', ['minutes ASC']],
};

export function before(ctx) {
  if (ctx.method !== 'GET') return;
  const options = recipeListOptions(ctx);
  const chosen = Object.hasOwn(ORDERS, ctx.query.get('sort') ?? '') ? ctx.query.get('sort') : 'newest';
  const choices = Object.entries(ORDERS).map(([value, [label]]) => [value, label]);
  options.controls.push({ position: 20, markup: selectField('Sort by', 'sort', choices, chosen) });
  options.order.push(...ORDERS[chosen][1]);
}
