// Changing your password: the current one first, the new one twice, at least 8 characters.
import { hashPassword, passwordMatches } from '../accounts.js';
import { textField } from '../forms.js';
import { html } from '../html.js';

export const access = 'user';

export function passwordSection() {
  return html`<h2>Password</h2>
<form method="post" action="/settings/password" aria-label="Change password">
${textField('Current password', 'current', '', { type: 'password' })}
${textField('New password', 'password', '', { type: 'password' })}
${textField('Repeat the new password', 'repeat', '', { type: 'password' })}
<p><button type="submit">Change password</button></p>
</form>`;
}

export function POST(ctx) {
  const password = ctx.form.get('password') ?? '';
  if (!passwordMatches(ctx.form.get('current') ?? '', ctx.user.password_hash)) {
    return ctx.redirect('/settings', 'The current password is wrong.');
  }
  if (password !== (ctx.form.get('repeat') ?? ''))
    return ctx.redirect('/settings', 'The new passwords do not match.');
  if (password.length < 8)
    return ctx.redirect('/settings', 'The new password must be at least 8 characters long.');
  ctx.db.run('UPDATE users SET password_hash = ? WHERE id = ?', [hashPassword(password), ctx.user.id]);
  ctx.redirect('/settings', 'Your password is changed.');
}
