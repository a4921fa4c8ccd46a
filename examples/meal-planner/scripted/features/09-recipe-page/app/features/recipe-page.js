// A recipe's own page: its facts, ingredients and method. Other features add actions (buttons, links) and sections
// through recipePageParts(ctx); a recipe is shown to its owner only unless a hook widens who may see it.
import { html } from '../html.js';
import { ingredientLines, recipeFacts } from '../recipes.js';

export const access = 'user';

/** What hooks on /recipes/:id add: who else may see a recipe, actions, sections, and changes to the ingredients. */
export function recipePageParts(ctx) {
  ctx.state.recipePage ??= { visibleTo: [], actions: [], sections: [], ingredients: [] };
  return ctx.state.recipePage;
}

/** The recipe with this id if the signed-in user may see it (theirs, or allowed by a hook), else undefined. */
export function visibleRecipe(ctx, id) {
  const recipe = ctx.db.get('SELECT * FROM recipes WHERE id = ?', [Number(id)]);
  if (!recipe) return undefined;
  const mine = recipe.user_id === ctx.user?.id;
  return mine || recipePageParts(ctx).visibleTo.some((rule) => rule(recipe, ctx)) ? recipe : undefined;
}

export function GET(ctx) {
  const recipe = visibleRecipe(ctx, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe with this address, or it is not yours to see.');
  const parts = recipePageParts(ctx);
  let lines = ingredientLines(recipe);
  for (const change of parts.ingredients) lines = change(lines, recipe, ctx);
  const mine = recipe.user_id === ctx.user.id;
  const actions = parts.actions.map((action) => action(recipe, mine, ctx)).filter(Boolean);
  const sections = parts.sections
    .sort((a, b) => a.position - b.position)
    .map((section) => section.render(recipe, mine, ctx));
  const method = recipe.method
    .split(/\n\s*\n/)
    .filter(Boolean)
    .map((paragraph) => html`<p>${paragraph}</p>`);
  const body = html`<h1>${recipe.title}</h1>
<p>${recipeFacts(recipe)}</p>
${actions.length ? html`<div class="actions">${actions}</div>` : ''}
<h2>Ingredients</h2>
<ul aria-label="Ingredients">${lines.map((line) => html`<li>${line}</li>`)}</ul>
<h2>Method</h2>
${method.length ? method : html`<p>No method written yet.</p>`}
${sections}
<p><a href="/recipes">Back to my recipes</a></p>`;
  ctx.render(recipe.title, body);
}
