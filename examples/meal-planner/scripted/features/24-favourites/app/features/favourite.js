// Favourites: the button on a recipe page adds the recipe to your favourites or takes it off again.
import { actionButton } from '../forms.js';
import { recipeForUser } from './recipe-visibility.js';

export const access = 'user';

export function isFavourite(db, userId, recipeId) {
  return Boolean(
    db.get('SELECT 1 AS yes FROM favourites WHERE user_id = ? AND recipe_id = ?', [userId, recipeId]),
  );
}

/** The button on the recipe page. */
export function favouriteButton(recipe, ctx) {
  const label = isFavourite(ctx.db, ctx.user.id, recipe.id) ? 'Remove from favourites' : 'Add to favourites';
  return actionButton(`/recipes/${recipe.id}/favourite`, label);
}

export function POST(ctx) {
  const recipe = recipeForUser(ctx, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe you can see at this address.');
  if (isFavourite(ctx.db, ctx.user.id, recipe.id)) {
    ctx.db.run('DELETE FROM favourites WHERE user_id = ? AND recipe_id = ?', [ctx.user.id, recipe.id]);
    return ctx.redirect(`/recipes/${recipe.id}`, `Removed from your favourites: ${recipe.title}.`);
  }
  ctx.db.run('INSERT INTO favourites (user_id, recipe_id, created_at) VALUES (?, ?, ?)', [
    ctx.user.id,
    recipe.id,
    new Date().toISOString(),
  ]);
  ctx.redirect(`/recipes/${recipe.id}`, `Added to your favourites: ${recipe.title}.`);
}
