// "Import recipes": many recipes at once, one per line as "Title | minutes | ingredient; ingredient; …". Every
// line must be a valid recipe, or nothing is imported and the page says which lines to fix.
import { errorSummary, textArea } from '../forms.js';
import { html } from '../html.js';
import { recipeProblems } from '../recipe-form.js';
import { createRecipe } from '../recipes.js';

export const access = 'user';

const EXAMPLE = 'Lentil soup | 30 | 200 g red lentils; 1 onion; 1 l stock';

function show(ctx, text = '', errors = []) {
  const body = html`<h1>Import recipes</h1>
<p>One recipe per line: title, minutes and ingredients separated by "|", ingredients separated by ";". For example: ${EXAMPLE}</p>
${errorSummary(errors)}
<form method="post" action="/recipes/import" aria-label="Import recipes">
${textArea('Recipes, one per line', 'recipes', text, 10)}
<p><button type="submit">Import</button></p>
</form>`;
  ctx.render('Import recipes', body, errors.length ? 400 : 200);
}

export function parseLine(line) {
  const [title = '', minutes = '', ingredients = ''] = line.split('|').map((part) => part.trim());
  return {
    title,
    servings: 2,
    minutes: minutes === '' ? 30 : Number(minutes),
    ingredients: ingredients
      .split(';')
      .map((item) => item.trim())
      .filter(Boolean)
      .join('\n'),
    method: '',
  };
}

export function GET(ctx) {
  show(ctx);
}

export function POST(ctx) {
  const text = ctx.form.get('recipes') ?? '';
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length === 0) return show(ctx, text, ['Paste at least one recipe.']);
  const recipes = lines.map(parseLine);
  const errors = recipes.flatMap((recipe, index) =>
    recipeProblems(recipe).map((problem) => `Line ${index + 1}: ${problem}`),
  );
  if (errors.length) return show(ctx, text, errors);
  ctx.db.transaction(() => {
    for (const recipe of recipes) createRecipe(ctx.db, ctx.user.id, recipe);
  });
  ctx.redirect('/recipes', `Imported ${recipes.length} ${recipes.length === 1 ? 'recipe' : 'recipes'}.`);
}
