// "Add ingredients to shopping list" on a recipe page: every ingredient line becomes an item.
import { ingredientLines } from '../recipes.js';
import { recipeForUser } from './recipe-visibility.js';
import { addShoppingItems } from './shopping-list.js';

export const access = 'user';

export function POST(ctx) {
  const recipe = recipeForUser(ctx, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe you can see at this address.');
  const added = addShoppingItems(ctx.db, ctx.user.id, ingredientLines(recipe));
  ctx.redirect('/shopping', `Added ${added} ${added === 1 ? 'item' : 'items'} from ${recipe.title}.`);
}
