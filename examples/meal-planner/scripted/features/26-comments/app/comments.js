// Comments on a recipe: everyone who can see a recipe can read and write them.
import { textArea } from './forms.js';
import { html } from './html.js';

// -- imports: add above this line --

/** Buttons beside a comment: each gets (comment, ctx) and returns markup, or nothing. */
const COMMENT_ACTIONS = [
  // -- comment actions: add above this line --
];

export function commentsSection(recipe, _mine, ctx) {
  const comments = ctx.db.all(
    'SELECT comments.*, users.name AS author FROM comments JOIN users ON users.id = comments.user_id WHERE recipe_id = ? ORDER BY comments.created_at, comments.id',
    [recipe.id],
  );
  const item = (comment) =>
    html`<li>${comment.author}: ${comment.body} ${COMMENT_ACTIONS.map((action) => action(comment, ctx))}</li>`;
  const list = comments.length
    ? html`<ul aria-label="Comments">${comments.map(item)}</ul>`
    : html`<p>No comments yet.</p>`;
  return html`<h2>Comments</h2>${list}
<form method="post" action="/recipes/${recipe.id}/comments" aria-label="Add a comment">
${textArea('Your comment', 'body', '', 3)}
<p><button type="submit">Post comment</button></p>
</form>`;
}
