// The week plan's dates (dayjs): weeks start on Monday unless a setting says otherwise; days are kept as
// YYYY-MM-DD in the server's local time.
import dayjs from 'dayjs';

export const MEALS = ['Breakfast', 'Lunch', 'Dinner'];
export const DAY_FORMAT = 'YYYY-MM-DD';

/** The weekday weeks start on for this user (0 = Sunday, 1 = Monday). */
// biome-ignore lint/correctness/noUnusedFunctionParameters: the setting inserted below reads ctx
export function weekStartDay(ctx) {
  // biome-ignore lint/style/useConst: a setting inserted below may change it
  let start = 1;
  // -- week start: add above this line --
  return start;
}

/** The first day of the week holding `date`. */
export function weekStart(date, startDay) {
  const day = dayjs(date).startOf('day');
  return day.subtract((day.day() - startDay + 7) % 7, 'day');
}

/** The first day of the week a request asks for (`?week=YYYY-MM-DD`), else of this week. */
export function requestedWeek(ctx) {
  const asked = ctx.query.get('week') ?? ctx.form.get('week') ?? '';
  const date = /^\d{4}-\d{2}-\d{2}$/.test(asked) && dayjs(asked).isValid() ? dayjs(asked) : dayjs();
  return weekStart(date, weekStartDay(ctx));
}

export function dayLabel(day) {
  return dayjs(day).format('dddd D MMMM');
}

/** Choices for a day select: `Today`, `Tomorrow`, then the next days by name and date. */
export function upcomingDays(count = 14) {
  const today = dayjs().startOf('day');
  return Array.from({ length: count }, (_, index) => {
    const day = today.add(index, 'day');
    const label = index === 0 ? 'Today' : index === 1 ? 'Tomorrow' : dayLabel(day);
    return [day.format(DAY_FORMAT), label];
  });
}

/** Choices for the days of one week, today's labelled `Today`. */
export function weekDays(start) {
  const today = dayjs().format(DAY_FORMAT);
  return Array.from({ length: 7 }, (_, index) => {
    const day = start.add(index, 'day').format(DAY_FORMAT);
    return [day, day === today ? 'Today' : dayLabel(day)];
  });
}

/** The planned entries of one week, by day and meal. */
export function weekEntries(db, userId, start) {
  return db.all(
    `SELECT plan_entries.*, recipes.title FROM plan_entries LEFT JOIN recipes ON recipes.id = plan_entries.recipe_id
     WHERE plan_entries.user_id = ? AND day >= ? AND day <= ?
     ORDER BY day, CASE meal WHEN 'Breakfast' THEN 0 WHEN 'Lunch' THEN 1 ELSE 2 END, plan_entries.id`,
    [userId, start.format(DAY_FORMAT), start.add(6, 'day').format(DAY_FORMAT)],
  );
}

/** What an entry says: "Dinner: Lentil soup (4 servings)" or "Lunch: Eating out". */
export function entryText(entry) {
  const what = entry.title ?? entry.note;
  const servings = entry.recipe_id && entry.servings ? ` (${entry.servings} servings)` : '';
  return `${entry.meal}: ${what}${servings}`;
}
