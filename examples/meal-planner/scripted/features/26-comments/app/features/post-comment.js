// Posting a comment on a recipe you can see (yours, or a public one).
import { recipeForUser } from './recipe-visibility.js';

export const access = 'user';

const MAX_LENGTH = 2000;

export function POST(ctx) {
  const recipe = recipeForUser(ctx, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe you can see at this address.');
  const body = (ctx.form.get('body') ?? '').trim();
  if (!body) return ctx.redirect(`/recipes/${recipe.id}`, 'Write something before posting a comment.');
  if (body.length > MAX_LENGTH)
    return ctx.redirect(`/recipes/${recipe.id}`, 'A comment can be at most 2000 characters.');
  ctx.db.run('INSERT INTO comments (recipe_id, user_id, body, created_at) VALUES (?, ?, ?, ?)', [
    recipe.id,
    ctx.user.id,
    body,
    new Date().toISOString(),
  ]);
  ctx.redirect(`/recipes/${recipe.id}`, 'Your comment is posted.');
}
