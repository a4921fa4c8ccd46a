// "Copy to my recipes": someone else's public recipe becomes a private recipe of yours, to change as you like.
import { createRecipe } from '../recipes.js';

export const access = 'user';

export function POST(ctx) {
  const recipe = ctx.db.get("SELECT * FROM recipes WHERE id = ? AND visibility = 'public'", [
    Number(ctx.params.id),
  ]);
  if (!recipe) return ctx.notFound('There is no public recipe at this address.');
  const id = createRecipe(ctx.db, ctx.user.id, recipe);
  ctx.redirect(`/recipes/${id}`, `Copied to your recipes: ${recipe.title}.`);
}
