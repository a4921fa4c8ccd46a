// "Week starts on" Monday or Sunday, for the meal plan.
import { selectField } from '../forms.js';
import { html } from '../html.js';

export const access = 'user';

const DAYS = [
  [1, 'Monday'],
  [0, 'Sunday'],
];

export function weekStartSection(ctx) {
  return html`<h2>Meal plan</h2>
<form method="post" action="/settings/week-start" aria-label="Week starts on">
${selectField('Week starts on', 'day', DAYS, ctx.user.week_start)}
<p><button type="submit">Save week start</button></p>
</form>`;
}

export function POST(ctx) {
  const day = Number(ctx.form.get('day'));
  if (day !== 0 && day !== 1) return ctx.redirect('/settings', 'Weeks start on Monday or Sunday.');
  ctx.db.run('UPDATE users SET week_start = ? WHERE id = ?', [day, ctx.user.id]);
  ctx.redirect('/settings', `Your weeks now start on ${day === 0 ? 'Sunday' : 'Monday'}.`);
}
