// "Add a note" on the meal plan: a meal without a recipe ("Eating out", "Leftovers").
import dayjs from 'dayjs';
import { selectField, textField } from '../forms.js';
import { html } from '../html.js';
import { DAY_FORMAT, MEALS, weekDays, weekStart, weekStartDay } from '../plan.js';

export const access = 'user';

export function noteForm(start) {
  return html`<form method="post" action="/plan/notes" aria-label="Add a note">
${selectField('Day', 'day', weekDays(start), dayjs().format(DAY_FORMAT))}
${selectField(
  'Meal',
  'meal',
  MEALS.map((meal) => [meal, meal]),
  'Lunch',
)}
${textField('Note', 'note', '')}
<p><button type="submit">Add note</button></p>
</form>`;
}

export function POST(ctx) {
  const day = ctx.form.get('day') ?? '';
  const meal = ctx.form.get('meal') ?? '';
  const note = (ctx.form.get('note') ?? '').trim();
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(day) ||
    !dayjs(day).isValid() ||
    !MEALS.includes(meal) ||
    !note ||
    note.length > 200
  ) {
    return ctx.redirect('/plan', 'A note needs a day, a meal and up to 200 characters of text.');
  }
  ctx.db.run(
    'INSERT INTO plan_entries (user_id, day, meal, recipe_id, servings, note) VALUES (?, ?, ?, NULL, NULL, ?)',
    [ctx.user.id, day, meal, note],
  );
  const week = weekStart(day, weekStartDay(ctx)).format(DAY_FORMAT);
  ctx.redirect(`/plan?week=${week}`, `Added to the plan: ${note}.`);
}
