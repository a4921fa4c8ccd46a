// "Add this week's ingredients to the shopping list" on the meal plan: the ingredients of every recipe planned that
// week, scaled to the servings planned, with the same ingredient added up ("200 g lentils" twice: "400 g lentils").
import { actionButton } from '../forms.js';
import { DAY_FORMAT, requestedWeek, weekEntries } from '../plan.js';
import { ingredientLines } from '../recipes.js';
import { scaleLine } from './scale-recipe.js';
import { addShoppingItems } from './shopping-list.js';

export const access = 'user';

export function weekToShoppingButton(start) {
  return actionButton('/plan/shopping', "Add this week's ingredients to the shopping list", undefined, {
    week: start.format(DAY_FORMAT),
  });
}

const QUANTITY = /^(\d+(?:\.\d+)?)\s+(.*)$/;

/** Adds up lines that differ only in their leading number; other lines are kept once. */
export function mergeLines(lines) {
  const totals = new Map();
  for (const line of lines) {
    const match = QUANTITY.exec(line);
    const key = (match ? match[2] : line).toLowerCase();
    const entry = totals.get(key) ?? { text: match ? match[2] : line, amount: match ? 0 : undefined };
    if (match && entry.amount !== undefined) entry.amount += Number(match[1]);
    totals.set(key, entry);
  }
  return [...totals.values()].map((entry) =>
    entry.amount === undefined ? entry.text : `${Math.round(entry.amount * 100) / 100} ${entry.text}`,
  );
}

export function POST(ctx) {
  const start = requestedWeek(ctx);
  const planned = weekEntries(ctx.db, ctx.user.id, start).filter((entry) => entry.recipe_id);
  const lines = planned.flatMap((entry) => {
    const recipe = ctx.db.get('SELECT * FROM recipes WHERE id = ?', [entry.recipe_id]);
    if (!recipe) return [];
    const factor = (entry.servings || recipe.servings) / recipe.servings;
    return ingredientLines(recipe).map((line) => scaleLine(line, factor));
  });
  const added = addShoppingItems(ctx.db, ctx.user.id, mergeLines(lines));
  ctx.redirect('/shopping', `Added ${added} ${added === 1 ? 'item' : 'items'} from this week's plan.`);
}
