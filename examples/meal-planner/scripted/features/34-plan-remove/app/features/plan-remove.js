// Removing one planned meal: the button beside each entry of the meal plan.
import { html } from '../html.js';
import { DAY_FORMAT, entryText, weekStart, weekStartDay } from '../plan.js';

export const access = 'user';

export function removeButton(entry) {
  const label = `Remove ${entryText(entry)}`;
  return html`<form method="post" action="/plan/${entry.id}/remove" class="inline"><button type="submit" aria-label="${label}">Remove</button></form>`;
}

export function POST(ctx) {
  const entry = ctx.db.get('SELECT * FROM plan_entries WHERE id = ? AND user_id = ?', [
    Number(ctx.params.id),
    ctx.user.id,
  ]);
  if (!entry) return ctx.notFound('There is no planned meal of yours at this address.');
  ctx.db.run('DELETE FROM plan_entries WHERE id = ?', [entry.id]);
  const week = weekStart(entry.day, weekStartDay(ctx)).format(DAY_FORMAT);
  ctx.redirect(`/plan?week=${week}`, 'Removed from the plan.');
}
