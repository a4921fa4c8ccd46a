// "Dashboard": a signed-in user's overview; its parts (WIDGETS) come from features, one line each.
import { html } from '../html.js';

// -- imports: add above this line --

/** Parts of the dashboard, in order: each gets (ctx) and returns markup. */
const WIDGETS = [
  (ctx) => {
    const { total } = ctx.db.get('SELECT COUNT(*) AS total FROM recipes WHERE user_id = ?', [ctx.user.id]);
    return html`<section><h2>Recipes</h2><p>${total} ${total === 1 ? 'recipe' : 'recipes'} in your collection. <a href="/recipes">Open my recipes</a></p></section>`;
  },
  // -- dashboard widgets: add above this line --
];

export const access = 'user';

export function GET(ctx) {
  const body = html`<h1>Dashboard</h1><p>Hello, ${ctx.user.name}.</p>${WIDGETS.map((widget) => widget(ctx))}`;
  ctx.render('Dashboard', body);
}
