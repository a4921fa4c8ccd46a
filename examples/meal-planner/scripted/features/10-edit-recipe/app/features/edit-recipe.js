// "Edit recipe": the recipe form filled with the recipe; saving changes it and goes back to its page.
import { html } from '../html.js';
import { readRecipe, recipeForm, recipeProblems } from '../recipe-form.js';
import { ownRecipe, savedColumns } from '../recipes.js';

export const access = 'user';

function show(ctx, recipe, values, errors = []) {
  const body = html`<h1>Edit recipe</h1>${recipeForm(`/recipes/${recipe.id}/edit`, values, errors, 'Save changes')}
<p><a href="/recipes/${recipe.id}">Cancel</a></p>`;
  ctx.render(`Edit ${recipe.title}`, body, errors.length ? 400 : 200);
}

export function GET(ctx) {
  const recipe = ownRecipe(ctx.db, ctx.user.id, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe of yours at this address.');
  show(ctx, recipe, recipe);
}

export function POST(ctx) {
  const recipe = ownRecipe(ctx.db, ctx.user.id, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe of yours at this address.');
  const fields = readRecipe(ctx.form);
  const errors = recipeProblems(fields);
  if (errors.length) return show(ctx, recipe, fields, errors);
  const columns = savedColumns(fields);
  ctx.db.run(
    `UPDATE recipes SET ${columns.map((column) => `${column} = ?`).join(', ')}, updated_at = ? WHERE id = ? AND user_id = ?`,
    [...columns.map((column) => fields[column]), new Date().toISOString(), recipe.id, ctx.user.id],
  );
  ctx.redirect(`/recipes/${recipe.id}`, `Changes saved: ${fields.title}.`);
}
