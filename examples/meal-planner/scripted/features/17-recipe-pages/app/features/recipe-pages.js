// Hook on /recipes: the list in pages ("Page 2 of 3", "Previous page" / "Next page"), keeping the other options.
import { html } from '../html.js';
import { recipeListOptions } from './my-recipes.js';

// biome-ignore lint/correctness/noUnusedFunctionParameters: the setting inserted below reads ctx
function pageSize(ctx) {
  // biome-ignore lint/style/useConst: a setting inserted below may change it
  let size = 10;
  // -- page size: add above this line --
  return size;
}

function pageLink(ctx, page, label) {
  const query = new URLSearchParams(ctx.query);
  query.set('page', String(page));
  return html`<a href="/recipes?${query.toString()}">${label}</a>`;
}

export function before(ctx) {
  if (ctx.method !== 'GET') return;
  const size = pageSize(ctx);
  recipeListOptions(ctx).paging = (total) => {
    const pages = Math.max(1, Math.ceil(total / size));
    const asked = Number.parseInt(ctx.query.get('page') ?? '1', 10);
    const page = Math.min(Math.max(Number.isNaN(asked) ? 1 : asked, 1), pages);
    const markup = html`<nav aria-label="Pages"><p>Page ${page} of ${pages}</p>
${page > 1 ? pageLink(ctx, page - 1, 'Previous page') : ''} ${page < pages ? pageLink(ctx, page + 1, 'Next page') : ''}</nav>`;
    return { limit: size, offset: (page - 1) * size, markup };
  };
}
