// "New recipe": the recipe form; a saved recipe goes to the top of "My recipes".
import { html } from '../html.js';
import { readRecipe, recipeForm, recipeProblems } from '../recipe-form.js';
import { createRecipe } from '../recipes.js';

export const access = 'user';

function show(ctx, values = {}, errors = []) {
  const body = html`<h1>New recipe</h1>${recipeForm('/recipes/new', values, errors, 'Save recipe')}`;
  ctx.render('New recipe', body, errors.length ? 400 : 200);
}

export function GET(ctx) {
  show(ctx);
}

export function POST(ctx) {
  const recipe = readRecipe(ctx.form);
  const errors = recipeProblems(recipe);
  if (errors.length) return show(ctx, recipe, errors);
  const id = createRecipe(ctx.db, ctx.user.id, recipe);
  ctx.state.savedRecipeId = id;
  ctx.redirect('/recipes', `Recipe saved: ${recipe.title}.`);
}
