// Hook on /recipes: a search box that keeps the recipes whose title or ingredients contain the words typed.
import { html } from '../html.js';
import { recipeListOptions } from './my-recipes.js';

function likePattern(text) {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export function before(ctx) {
  if (ctx.method !== 'GET') return;
  const options = recipeListOptions(ctx);
  const query = (ctx.query.get('q') ?? '').trim();
  options.controls.push({
    position: 10,
    markup: html`<p><label for="recipe-search">Search recipes</label> <input id="recipe-search" type="search" name="q" value="${query}"></p>`,
  });
  if (!query) return;
  options.where.push("(title LIKE ? ESCAPE '\\' OR ingredients LIKE ? ESCAPE '\\')");
  options.params.push(likePattern(query), likePattern(query));
}
