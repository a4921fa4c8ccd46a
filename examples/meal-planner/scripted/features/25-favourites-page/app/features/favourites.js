// "Favourites": the recipes you marked, most recently marked first.
import { html } from '../html.js';

export const access = 'user';

export function GET(ctx) {
  const recipes = ctx.db.all(
    "SELECT recipes.id, recipes.title FROM favourites JOIN recipes ON recipes.id = favourites.recipe_id WHERE favourites.user_id = ? AND (recipes.user_id = ? OR recipes.visibility = 'public') ORDER BY favourites.created_at DESC",
    [ctx.user.id, ctx.user.id],
  );
  const list = recipes.length
    ? html`<ul aria-label="Favourite recipes">${recipes.map((recipe) => html`<li><a href="/recipes/${recipe.id}">${recipe.title}</a></li>`)}</ul>`
    : html`<p>No favourites yet. Use "Add to favourites" on a recipe.</p>`;
  ctx.render('Favourites', html`<h1>Favourites</h1>${list}`);
}
