// Dashboard: today's planned meals.
import dayjs from 'dayjs';
import { html } from '../html.js';
import { DAY_FORMAT, entryText } from '../plan.js';

export function todayWidget(ctx) {
  const entries = ctx.db.all(
    `SELECT plan_entries.*, recipes.title FROM plan_entries LEFT JOIN recipes ON recipes.id = plan_entries.recipe_id
     WHERE plan_entries.user_id = ? AND day = ? ORDER BY CASE meal WHEN 'Breakfast' THEN 0 WHEN 'Lunch' THEN 1 ELSE 2 END`,
    [ctx.user.id, dayjs().format(DAY_FORMAT)],
  );
  const list = entries.length
    ? html`<ul aria-label="Today's meals">${entries.map((entry) => html`<li>${entryText(entry)}</li>`)}</ul>`
    : html`<p>Nothing planned for today. <a href="/plan">Plan a meal</a></p>`;
  return html`<section><h2>Today</h2>${list}</section>`;
}
