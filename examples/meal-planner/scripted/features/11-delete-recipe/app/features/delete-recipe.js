// Deleting a recipe (the button asks first): the recipe and everything that points at it are removed.
import { ownRecipe } from '../recipes.js';

/** Removes what other features keep about a recipe: each gets (db, recipeId). */
const CLEANUPS = [
  // -- recipe cleanup: add above this line --
];

export const access = 'user';

export function POST(ctx) {
  const recipe = ownRecipe(ctx.db, ctx.user.id, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe of yours at this address.');
  ctx.db.transaction(() => {
    for (const cleanup of CLEANUPS) cleanup(ctx.db, recipe.id);
    ctx.db.run('DELETE FROM recipes WHERE id = ? AND user_id = ?', [recipe.id, ctx.user.id]);
  });
  ctx.redirect('/recipes', `Recipe deleted: ${recipe.title}.`);
}
