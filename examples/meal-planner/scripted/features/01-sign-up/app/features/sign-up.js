// The sign-up page: name, email and password make an account, and the new user is signed in at once.
import { createUser, startSession } from '../accounts.js';
import { errorSummary, textField } from '../forms.js';
import { html } from '../html.js';

// -- imports: add above this line --

/** Each check gets the form's values and the database and returns a problem, or nothing. */
const SIGN_UP_CHECKS = [
  (input) => (!input.name || !input.email || !input.password ? 'Fill in every field.' : undefined),
  // -- sign-up checks: add above this line --
];

function form(ctx, values = {}, errors = []) {
  const body = html`<h1>Sign up</h1>
${errorSummary(errors)}
<form method="post" action="/signup" aria-label="Sign up" novalidate>
${textField('Name', 'name', values.name)}
${textField('Email', 'email', values.email, { type: 'email' })}
${textField('Password', 'password', '', { type: 'password' })}
<p><button type="submit">Create account</button></p>
</form>`;
  ctx.render('Sign up', body, errors.length ? 400 : 200);
}

export function GET(ctx) {
  if (ctx.user) return ctx.redirect('/');
  form(ctx);
}

export function POST(ctx) {
  const input = {
    name: (ctx.form.get('name') ?? '').trim(),
    email: (ctx.form.get('email') ?? '').trim(),
    password: ctx.form.get('password') ?? '',
  };
  const errors = SIGN_UP_CHECKS.map((check) => check(input, ctx.db)).filter(Boolean);
  if (errors.length) return form(ctx, input, errors);
  const userId = createUser(ctx.db, input);
  startSession(ctx, userId);
  ctx.redirect('/', `Welcome, ${input.name}! Your account is ready.`);
}
