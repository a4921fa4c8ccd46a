// Ratings: one to five stars per user and recipe (rating again replaces your rating); the page shows the average.
import { selectField } from '../forms.js';
import { html } from '../html.js';
import { recipeForUser } from './recipe-visibility.js';

export const access = 'user';

const STARS = [
  ['5', '5 – excellent'],
  ['4', '4 – good'],
  ['3', '3 – fine'],
  ['2', '2 – meh'],
  ['1', '1 – poor'],
];

export function ratingSection(recipe, _mine, ctx) {
  const summary = ctx.db.get(
    'SELECT AVG(stars) AS average, COUNT(*) AS count FROM ratings WHERE recipe_id = ?',
    [recipe.id],
  );
  const own = ctx.db.get('SELECT stars FROM ratings WHERE recipe_id = ? AND user_id = ?', [
    recipe.id,
    ctx.user.id,
  ]);
  const text = summary.count
    ? `Rated ${summary.average.toFixed(1)} out of 5 from ${summary.count} ${summary.count === 1 ? 'rating' : 'ratings'}.`
    : 'Not rated yet.';
  return html`<h2>Rating</h2><p>${text}</p>
<form method="post" action="/recipes/${recipe.id}/rating" aria-label="Rate this recipe">
${selectField('Your rating', 'stars', STARS, own?.stars ?? 5)}
<p><button type="submit">Rate</button></p>
</form>`;
}

export function POST(ctx) {
  const recipe = recipeForUser(ctx, ctx.params.id);
  if (!recipe) return ctx.notFound('There is no recipe you can see at this address.');
  const stars = Number(ctx.form.get('stars'));
  if (!Number.isInteger(stars) || stars < 1 || stars > 5) {
    return ctx.redirect(`/recipes/${recipe.id}`, 'Choose from 1 to 5 stars.');
  }
  ctx.db.run('DELETE FROM ratings WHERE user_id = ? AND recipe_id = ?', [ctx.user.id, recipe.id]);
  ctx.db.run('INSERT INTO ratings (user_id, recipe_id, stars) VALUES (?, ?, ?)', [
    ctx.user.id,
    recipe.id,
    stars,
  ]);
  ctx.redirect(`/recipes/${recipe.id}`, `You rated ${recipe.title} ${stars} out of 5.`);
}
