// "My recipes": the signed-in user's recipes, newest first. List options (search, sort, filters, pages) are added
// by hooks on /recipes through recipeListOptions(ctx); this page builds one query from what they asked for.
import { html } from '../html.js';

export const access = 'user';

/** What hooks on /recipes ask of the list: conditions, an order, controls for the options form, and paging. */
export function recipeListOptions(ctx) {
  ctx.state.recipeList ??= { where: [], params: [], order: [], controls: [], paging: undefined, notes: [] };
  return ctx.state.recipeList;
}

function item(recipe) {
  return html`<li><a href="/recipes/${recipe.id}">${recipe.title}</a> <span class="meta">· ${recipe.minutes} min · serves ${recipe.servings}</span></li>`;
}

export function GET(ctx) {
  const options = recipeListOptions(ctx);
  const where = ['user_id = ?', ...options.where].join(' AND ');
  const params = [ctx.user.id, ...options.params];
  const order = [...options.order, 'created_at DESC', 'id DESC'].join(', ');
  const total = ctx.db.get(`SELECT COUNT(*) AS total FROM recipes WHERE ${where}`, params).total;
  const paging = options.paging?.(total) ?? { limit: -1, offset: 0, markup: '' };
  const recipes = ctx.db.all(`SELECT * FROM recipes WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`, [
    ...params,
    paging.limit,
    paging.offset,
  ]);
  const controls = options.controls.sort((a, b) => a.position - b.position).map((control) => control.markup);
  const form = controls.length
    ? html`<form method="get" action="/recipes" role="search" aria-label="Recipe list options">${controls}<p><button type="submit">Show</button></p></form>`
    : '';
  const filtered = options.where.length > 0;
  const list = recipes.length
    ? html`<ul aria-label="Recipes">${recipes.map(item)}</ul>`
    : html`<p>${filtered ? 'No recipes match these options.' : 'No recipes yet. Add your first one with "New recipe".'}</p>`;
  const notes = options.notes.map((note) => note(total, recipes));
  ctx.render('My recipes', html`<h1>My recipes</h1>${form}${notes}${list}${paging.markup}`);
}
