// "Explore": every user's public recipes, newest first, with who shared them.
import { html } from '../html.js';

export function GET(ctx) {
  const recipes = ctx.db.all(
    "SELECT recipes.id, recipes.title, recipes.minutes, users.name AS author FROM recipes JOIN users ON users.id = recipes.user_id WHERE recipes.visibility = 'public' ORDER BY recipes.created_at DESC, recipes.id DESC LIMIT 100",
  );
  const item = (recipe) =>
    ctx.user
      ? html`<li><a href="/recipes/${recipe.id}">${recipe.title}</a> by ${recipe.author}</li>`
      : html`<li>${recipe.title} by ${recipe.author}</li>`;
  const list = recipes.length
    ? html`<ul aria-label="Public recipes">${recipes.map(item)}</ul>`
    : html`<p>Nobody has shared a recipe yet.</p>`;
  const hint = ctx.user ? '' : html`<p>Log in to open these recipes.</p>`;
  ctx.render('Explore', html`<h1>Explore</h1><p>Recipes other cooks have made public.</p>${hint}${list}`);
}
