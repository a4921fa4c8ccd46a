// Hook on /recipes: "Tag" keeps the recipes carrying the tag chosen (the choices are the user's own tags).
import { selectField } from '../forms.js';
import { tagList } from '../tags.js';
import { recipeListOptions } from './my-recipes.js';

export function before(ctx) {
  if (ctx.method !== 'GET') return;
  const options = recipeListOptions(ctx);
  const rows = ctx.db.all("SELECT tags FROM recipes WHERE user_id = ? AND tags != ''", [ctx.user.id]);
  const tags = [...new Set(rows.flatMap(tagList))].sort();
  const chosen = tags.includes(ctx.query.get('tag') ?? '') ? ctx.query.get('tag') : '';
  const choices = [['', 'All tags'], ...tags.map((tag) => [tag, tag])];
  options.controls.push({ position: 40, markup: selectField('Tag', 'tag', choices, chosen) });
  if (!chosen) return;
  options.where.push("(',' || REPLACE(tags, ', ', ',') || ',') LIKE ?");
  options.params.push(`%,${chosen},%`);
}
