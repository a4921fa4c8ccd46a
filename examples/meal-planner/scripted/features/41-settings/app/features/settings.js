// "Settings": your name, and sections other features add (SETTINGS_SECTIONS, one line each), each a form of its own.
import { textField } from '../forms.js';
import { html } from '../html.js';

// -- imports: add above this line --

/** Sections after the name: each gets (ctx) and returns markup. */
const SETTINGS_SECTIONS = [
  // -- settings sections: add above this line --
];

export const access = 'user';

export function GET(ctx) {
  const body = html`<h1>Settings</h1>
<h2>Your name</h2>
<form method="post" action="/settings/name" aria-label="Your name">${textField('Name', 'name', ctx.user.name)}<p><button type="submit">Save name</button></p></form>
${SETTINGS_SECTIONS.map((section) => section(ctx))}`;
  ctx.render('Settings', body);
}
