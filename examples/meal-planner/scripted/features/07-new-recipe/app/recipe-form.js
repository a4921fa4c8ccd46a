// The recipe form, shared by "New recipe" and "Edit recipe": its fields, reading them from a request, and the
// checks a recipe must pass (each returns a problem, or nothing; every problem is shown at once).
import { errorSummary, textArea, textField } from './forms.js';
import { html } from './html.js';
// -- imports: add above this line --

export const RECIPE_CHECKS = [
  (recipe) => (recipe.title ? undefined : 'Enter a title.'),
  // -- recipe checks: add above this line --
];

/** Extra fields, each `{ render(values), read(form, recipe) }`. */
export const EXTRA_FIELDS = [
  // -- recipe fields: add above this line --
];

function whole(text, fallback) {
  const trimmed = String(text ?? '').trim();
  return trimmed === '' ? fallback : Number(trimmed);
}

export function readRecipe(form) {
  const recipe = {
    title: (form.get('title') ?? '').trim(),
    servings: whole(form.get('servings'), 2),
    minutes: whole(form.get('minutes'), 30),
    ingredients: (form.get('ingredients') ?? '').replace(/\r\n/g, '\n').trim(),
    method: (form.get('method') ?? '').replace(/\r\n/g, '\n').trim(),
  };
  for (const field of EXTRA_FIELDS) field.read(form, recipe);
  return recipe;
}

export function recipeProblems(recipe) {
  return RECIPE_CHECKS.map((check) => check(recipe)).filter(Boolean);
}

export function recipeForm(action, values, errors, button) {
  return html`${errorSummary(errors)}
<form method="post" action="${action}" aria-label="Recipe" novalidate>
${textField('Title', 'title', values.title)}
${textField('Servings', 'servings', values.servings ?? 2, { type: 'number', min: 1, max: 50 })}
${textField('Time in minutes', 'minutes', values.minutes ?? 30, { type: 'number', min: 0, max: 1440 })}
${textArea('Ingredients, one per line', 'ingredients', values.ingredients, 6)}
${textArea('Method', 'method', values.method, 6)}
${EXTRA_FIELDS.map((field) => field.render(values))}
<p><button type="submit">${button}</button></p>
</form>`;
}
