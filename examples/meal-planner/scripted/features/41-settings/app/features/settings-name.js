// Saving your name (shown in the header and beside your comments).
export const access = 'user';

export function POST(ctx) {
  const name = (ctx.form.get('name') ?? '').trim();
  if (!name || name.length > 80)
    return ctx.redirect('/settings', 'Your name must be 1 to 80 characters long.');
  ctx.db.run('UPDATE users SET name = ? WHERE id = ?', [name, ctx.user.id]);
  ctx.redirect('/settings', 'Your name is saved.');
}
