// The home page.
import { html } from '../html.js';

export function GET(ctx) {
  const next = ctx.user
    ? html`<p>Welcome, ${ctx.user.name}. Use the menu to get to your recipes and plans.</p>`
    : html`<p>Sign up or log in to start.</p>`;
  ctx.render(
    'Home',
    html`<h1>Meal planner</h1><p>Keep your recipes, plan the week's meals and never forget the shopping.</p>${next}`,
  );
}
