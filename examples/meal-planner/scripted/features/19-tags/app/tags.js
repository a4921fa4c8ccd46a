// Recipe tags: kept as one lower-case text ("quick, vegetarian"), shown as links that filter "My recipes".
import { html } from './html.js';

export function normalizeTags(text) {
  const tags = String(text ?? '')
    .split(',')
    .map((tag) => tag.trim().toLowerCase())
    .filter(Boolean);
  return [...new Set(tags)].join(', ');
}

export function tagList(recipe) {
  return String(recipe.tags ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

export function tagsSection(recipe) {
  const tags = tagList(recipe);
  if (tags.length === 0) return '';
  const items = tags.map(
    (tag) => html`<li><a href="/recipes?tag=${encodeURIComponent(tag)}">${tag}</a></li>`,
  );
  return html`<h2>Tags</h2><ul aria-label="Tags">${items}</ul>`;
}
