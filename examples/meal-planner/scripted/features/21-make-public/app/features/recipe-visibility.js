// A recipe is private (only its owner sees it) until its owner makes it public; the button switches it back.
import { actionButton } from '../forms.js';
import { html } from '../html.js';
import { ownRecipe } from '../recipes.js';

export const access = 'user';

/** The note and the button on the owner's recipe page. */
export function visibilityControl(recipe) {
  const isPublic = recipe.visibility === 'public';
  const note = isPublic
    ? 'This recipe is public: everyone with an account can see it.'
    : 'This recipe is private: only you can see it.';
  const label = isPublic ? 'Make private' : 'Make public';
  return html`<p class="visibility">${note} ${actionButton(`/recipes/${recipe.id}/visibility`, label)}</p>`;
}

/** The recipe with this id if the signed-in user may see it (theirs, or public), else undefined. */
export function recipeForUser(ctx, id) {
  return ctx.db.get("SELECT * FROM recipes WHERE id = ? AND (user_id = ? OR visibility = 'public')", [
    Number(id),
    ctx.user.id,
  ]);
}

export function POST(ctx) {
  const recipe = ownRecipe(ctx.db, ctx.user.id, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe of yours at this address.');
  const next = recipe.visibility === 'public' ? 'private' : 'public';
  ctx.db.run('UPDATE recipes SET visibility = ? WHERE id = ?', [next, recipe.id]);
  ctx.redirect(`/recipes/${recipe.id}`, `Now ${next}: ${recipe.title}.`);
}
