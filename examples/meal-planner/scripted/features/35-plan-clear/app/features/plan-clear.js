// "Clear this week" on the meal plan (the button asks first): every meal planned for the week shown is removed.
import { actionButton } from '../forms.js';
import { DAY_FORMAT, requestedWeek } from '../plan.js';

export const access = 'user';

export function clearButton(start) {
  return actionButton('/plan/clear', 'Clear this week', 'Remove every meal planned for this week?', {
    week: start.format(DAY_FORMAT),
  });
}

export function POST(ctx) {
  const start = requestedWeek(ctx);
  ctx.db.run('DELETE FROM plan_entries WHERE user_id = ? AND day >= ? AND day <= ?', [
    ctx.user.id,
    start.format(DAY_FORMAT),
    start.add(6, 'day').format(DAY_FORMAT),
  ]);
  ctx.redirect(`/plan?week=${start.format(DAY_FORMAT)}`, `Cleared the week of ${start.format('D MMMM')}.`);
}
