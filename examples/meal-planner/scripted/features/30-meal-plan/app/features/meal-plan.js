// "Meal plan": the week, day by day, with what is planned for breakfast, lunch and dinner. Tools above the week
// (PLAN_TOOLS) and buttons beside each entry (ENTRY_ACTIONS) come from other features, one line each.
import dayjs from 'dayjs';
import { html } from '../html.js';
import { DAY_FORMAT, dayLabel, entryText, requestedWeek, weekEntries } from '../plan.js';

// -- imports: add above this line --

/** Forms and links above the week: each gets (week start, ctx) and returns markup, or nothing. */
const PLAN_TOOLS = [
  // -- plan tools: add above this line --
];

/** Buttons beside an entry: each gets (entry, ctx) and returns markup, or nothing. */
const ENTRY_ACTIONS = [
  // -- plan entry actions: add above this line --
];

export const access = 'user';

function entryItem(entry, ctx) {
  const text = entryText(entry);
  const shown = entry.recipe_id ? html`<a href="/recipes/${entry.recipe_id}">${text}</a>` : text;
  return html`<li>${shown} ${ENTRY_ACTIONS.map((action) => action(entry, ctx))}</li>`;
}

export function GET(ctx) {
  const start = requestedWeek(ctx);
  const entries = weekEntries(ctx.db, ctx.user.id, start);
  const today = dayjs().format(DAY_FORMAT);
  const days = Array.from({ length: 7 }, (_, index) => {
    const day = start.add(index, 'day').format(DAY_FORMAT);
    const planned = entries.filter((entry) => entry.day === day);
    const label = dayLabel(day);
    const list = planned.length
      ? html`<ul aria-label="${label}">${planned.map((entry) => entryItem(entry, ctx))}</ul>`
      : html`<p>Nothing planned.</p>`;
    return html`<section><h2>${label}${day === today ? ' (today)' : ''}</h2>${list}</section>`;
  });
  const tools = PLAN_TOOLS.map((tool) => tool(start, ctx));
  const body = html`<h1>Meal plan</h1><p>Week of ${start.format('dddd D MMMM YYYY')}</p>${tools}${days}`;
  ctx.render('Meal plan', body);
}
