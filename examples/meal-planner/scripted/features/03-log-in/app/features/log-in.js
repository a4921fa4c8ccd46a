// The log-in page: email and password; a wrong pair gets one message that does not say which of them was wrong.
import { findUserByEmail, passwordMatches, startSession } from '../accounts.js';
import { errorSummary, textField } from '../forms.js';
import { html } from '../html.js';

// -- imports: add above this line --

function form(ctx, email = '', errors = [], status = 200) {
  const next = ctx.form.get('next') ?? ctx.query.get('next') ?? '';
  const body = html`<h1>Log in</h1>
${errorSummary(errors)}
<form method="post" action="/login" aria-label="Log in">
<input type="hidden" name="next" value="${next}">
${textField('Email', 'email', email, { type: 'email' })}
${textField('Password', 'password', '', { type: 'password' })}
<p><button type="submit">Log in</button></p>
</form>
<p>New here? <a href="/signup">Create an account</a>.</p>`;
  ctx.render('Log in', body, status);
}

export function GET(ctx) {
  if (ctx.user) return ctx.redirect('/');
  form(ctx);
}

export function POST(ctx) {
  const email = (ctx.form.get('email') ?? '').trim();
  const user = findUserByEmail(ctx.db, email);
  if (!user || !passwordMatches(ctx.form.get('password') ?? '', user.password_hash)) {
    return form(ctx, email, ['Email or password is wrong.'], 401);
  }
  startSession(ctx, user.id);
  // biome-ignore lint/style/useConst: features insert redirects below that change it
  let destination = '/';
  // -- after log in: add redirects above this line --
  ctx.redirect(destination, `Welcome back, ${user.name}.`);
}
