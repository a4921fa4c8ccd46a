// "Plan this recipe": from a recipe page, put the recipe on a day's breakfast, lunch or dinner, for some servings.
import dayjs from 'dayjs';
import { selectField, textField } from '../forms.js';
import { html } from '../html.js';
import { DAY_FORMAT, dayLabel, MEALS, upcomingDays, weekStart, weekStartDay } from '../plan.js';
import { recipeForUser } from './recipe-visibility.js';

export const access = 'user';

/** The form on the recipe page. */
export function planForm(recipe) {
  return html`<form method="post" action="/recipes/${recipe.id}/plan" aria-label="Plan this recipe">
${selectField('Day', 'day', upcomingDays(), '')}
${selectField(
  'Meal',
  'meal',
  MEALS.map((meal) => [meal, meal]),
  'Dinner',
)}
${textField('Servings', 'servings', recipe.servings, { type: 'number', min: 1, max: 50 })}
<p><button type="submit">Add to plan</button></p>
</form>`;
}

export function POST(ctx) {
  const recipe = recipeForUser(ctx, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe you can see at this address.');
  const day = ctx.form.get('day') ?? '';
  const meal = ctx.form.get('meal') ?? '';
  const servings = Number(ctx.form.get('servings') || recipe.servings);
  const validDay = /^\d{4}-\d{2}-\d{2}$/.test(day) && dayjs(day).isValid();
  if (!validDay || !MEALS.includes(meal) || !Number.isInteger(servings) || servings < 1 || servings > 50) {
    return ctx.redirect(`/recipes/${recipe.id}`, 'Choose a day, a meal and from 1 to 50 servings.');
  }
  ctx.db.run(
    'INSERT INTO plan_entries (user_id, day, meal, recipe_id, servings, note) VALUES (?, ?, ?, ?, ?, NULL)',
    [ctx.user.id, day, meal, recipe.id, servings],
  );
  const week = weekStart(day, weekStartDay(ctx)).format(DAY_FORMAT);
  ctx.redirect(
    `/plan?week=${week}`,
    `Planned ${recipe.title} for ${meal.toLowerCase()} on ${dayLabel(day)}.`,
  );
}
