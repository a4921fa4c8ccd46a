// "Duplicate": a copy of one of your recipes, titled "Copy of …", to vary without touching the original.
import { createRecipe, EXTRA_COLUMNS, ownRecipe } from '../recipes.js';

export const access = 'user';

export function POST(ctx) {
  const recipe = ownRecipe(ctx.db, ctx.user.id, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe of yours at this address.');
  const copy = { ...recipe, title: `Copy of ${recipe.title}` };
  for (const column of EXTRA_COLUMNS) copy[column] = recipe[column];
  const id = createRecipe(ctx.db, ctx.user.id, copy);
  ctx.redirect(`/recipes/${id}`, `Made a copy: Copy of ${recipe.title}.`);
}
