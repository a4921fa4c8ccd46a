/** Steps the finding features share: importing recipes, choosing a filter, the order of the list. */
import type { CheckAction, CheckStepInput } from './check-format.js';

/** The line the app's imports are added above. */
export const IMPORTS = '// -- imports: add above this line --';
const SHOW: CheckAction = { click: { role: 'button', name: 'Show' } };

/** Actions that import recipes through "Import recipes" (lines "Title | minutes | ingredient; …"). */
export function importRecipes(lines: string[]): CheckAction[] {
  return [
    { goto: '/recipes/import' },
    { fill: { role: 'textbox', name: 'Recipes, one per line' }, text: lines.join('\n') },
    { click: { role: 'button', name: 'Import' } },
  ];
}

/** Shell: imports recipes for the signed-in user (one argument per line). */
export function importShell(...lines: string[]): string {
  const text = lines.join('\\n');
  return `[ "$(post /recipes/import $'recipes=${text}')" = 303 ] || fail "POST /recipes/import did not import"`;
}

/** Picks an option of a filter, then shows the list. */
export function choose(name: string, option: string): CheckAction[] {
  return [{ select: { role: 'combobox', name }, option }, SHOW];
}

/** Expects the recipes in this order. */
export function orderStep(titles: string[]): CheckStepInput {
  return { expect: [{ order: titles.map((title) => `${title} {tag}`), in: 'Recipes' }] };
}

/** Three recipes whose title, time and ingredient orders differ. */
export const SORT_RECIPES = [
  'Beta stew {tag} | 5 | beans',
  'Gamma pie {tag} | 90 | pastry',
  'Alpha salad {tag} | 30 | lettuce',
];
/** Twelve recipes: more than a page. */
export const DISHES = Array.from(
  { length: 12 },
  (_, index) => `Dish ${String(index + 1).padStart(2, '0')} {tag} | 20 | rice`,
);
