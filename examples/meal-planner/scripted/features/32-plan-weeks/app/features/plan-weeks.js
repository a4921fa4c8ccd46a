// Links between weeks on the meal plan: "Previous week", "This week", "Next week".
import { html } from '../html.js';
import { DAY_FORMAT } from '../plan.js';

export function weekLinks(start) {
  const link = (day, label) => html`<a href="/plan?week=${day.format(DAY_FORMAT)}">${label}</a>`;
  return html`<nav aria-label="Weeks"><p>${link(start.subtract(7, 'day'), 'Previous week')} · <a href="/plan">This week</a> · ${link(start.add(7, 'day'), 'Next week')}</p></nav>`;
}
