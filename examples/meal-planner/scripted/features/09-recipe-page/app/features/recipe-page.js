// A recipe's own page: its facts, ingredients and method. Other features add buttons and links (ACTIONS) and
// sections (SECTIONS) with one line each, and hooks on /recipes/:id can widen who may see a recipe or change the
// ingredients shown (recipePageParts); a recipe is shown to its owner only unless a hook allows more.
// biome-ignore lint/correctness/noUnusedImports: the buttons other features insert into ACTIONS use it
import { actionButton } from '../forms.js';
import { html } from '../html.js';
import { ingredientLines, recipeFacts } from '../recipes.js';

// -- imports: add above this line --

/** Buttons and links under the facts: each gets (recipe, mine, ctx) and returns markup, or nothing. */
const ACTIONS = [
  // -- recipe actions: add above this line --
];

/** Sections after the method, in this order: each gets (recipe, mine, ctx) and returns markup, or nothing. */
const SECTIONS = [
  // -- recipe sections: add above this line --
];

export const access = 'user';

/** What hooks on /recipes/:id add: who else may see a recipe, markup above the ingredients, ingredient changes. */
export function recipePageParts(ctx) {
  ctx.state.recipePage ??= { visibleTo: [], aboveIngredients: [], ingredients: [] };
  return ctx.state.recipePage;
}

/** The recipe with this id if the signed-in user may see it (theirs, or allowed by a hook), else undefined. */
export function visibleRecipe(ctx, id) {
  const recipe = ctx.db.get('SELECT * FROM recipes WHERE id = ?', [Number(id)]);
  if (!recipe) return undefined;
  const mine = recipe.user_id === ctx.user?.id;
  return mine || recipePageParts(ctx).visibleTo.some((rule) => rule(recipe, ctx)) ? recipe : undefined;
}

function methodParagraphs(recipe) {
  const paragraphs = recipe.method.split(/\n\s*\n/).filter(Boolean);
  return paragraphs.length
    ? paragraphs.map((text) => html`<p>${text}</p>`)
    : html`<p>No method written yet.</p>`;
}

export function GET(ctx) {
  const recipe = visibleRecipe(ctx, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe with this address, or it is not yours to see.');
  const parts = recipePageParts(ctx);
  let lines = ingredientLines(recipe);
  for (const change of parts.ingredients) lines = change(lines, recipe, ctx);
  const mine = recipe.user_id === ctx.user.id;
  const actions = ACTIONS.map((action) => action(recipe, mine, ctx)).filter(Boolean);
  const sections = SECTIONS.map((section) => section(recipe, mine, ctx)).filter(Boolean);
  const above = parts.aboveIngredients.map((part) => part(recipe, ctx));
  const body = html`<h1>${recipe.title}</h1>
<p>${recipeFacts(recipe)}</p>
${actions.length ? html`<div class="actions">${actions}</div>` : ''}
${above}
<h2>Ingredients</h2>
<ul aria-label="Ingredients">${lines.map((line) => html`<li>${line}</li>`)}</ul>
<h2>Method</h2>
${methodParagraphs(recipe)}
${sections}
<p><a href="/recipes">Back to my recipes</a></p>`;
  ctx.render(recipe.title, body);
}
