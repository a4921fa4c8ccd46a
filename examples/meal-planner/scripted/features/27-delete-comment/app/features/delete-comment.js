// Deleting one of your own comments (the button asks first).
import { actionButton } from '../forms.js';

export const access = 'user';

/** The button beside your own comments. */
export function deleteCommentButton(comment, ctx) {
  if (comment.user_id !== ctx.user?.id) return '';
  return actionButton(`/comments/${comment.id}/delete`, 'Delete comment', 'Delete this comment?');
}

export function POST(ctx) {
  const comment = ctx.db.get('SELECT * FROM comments WHERE id = ? AND user_id = ?', [
    Number(ctx.params.id),
    ctx.user.id,
  ]);
  if (!comment) return ctx.notFound('There is no comment of yours at this address.');
  ctx.db.run('DELETE FROM comments WHERE id = ?', [comment.id]);
  ctx.redirect(`/recipes/${comment.recipe_id}`, 'Your comment is deleted.');
}
