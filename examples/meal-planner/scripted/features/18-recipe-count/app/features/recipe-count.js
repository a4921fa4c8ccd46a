// Hook on /recipes: a line saying how many recipes there are, and how many match when options narrow the list.
import { html } from '../html.js';
import { recipeListOptions } from './my-recipes.js';

function recipes(count) {
  return `${count} ${count === 1 ? 'recipe' : 'recipes'}`;
}

export function before(ctx) {
  if (ctx.method !== 'GET') return;
  const options = recipeListOptions(ctx);
  options.notes.push((matching) => {
    const all = ctx.db.get('SELECT COUNT(*) AS total FROM recipes WHERE user_id = ?', [ctx.user.id]).total;
    if (all === 0) return '';
    const text = options.where.length ? `${matching} of ${recipes(all)} match.` : `You have ${recipes(all)}.`;
    return html`<p class="count">${text}</p>`;
  });
}
