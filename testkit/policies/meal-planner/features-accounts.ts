/** The meal planner's accounts: sign up, log out, log in, and the sign-up form's rules. */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';

const SIGN_UP = 'app/features/sign-up.js';
const LOG_IN = 'app/features/log-in.js';
const IMPORTS = '// -- imports: add above this line --';

export const ACCOUNT_FEATURES: MealPlannerFeatureInput[] = [
  {
    key: 'sign-up',
    area: 'accounts',
    category: 'functional',
    description:
      'Sign up: a visitor creates an account with a name, an email and a password on the "Sign up" page and is signed in at once',
    steps: [
      'Open the app and click "Sign up" in the menu',
      'Fill in "Name", "Email" and "Password" and click "Create account"',
      'The page says "Welcome, <name>! Your account is ready." and the header says "Signed in as <name>"',
      'Open the app again',
      'The header still says "Signed in as <name>"',
    ],
    sourceDir: '01-sign-up',
    insertions: [
      migrations(
        [
          'users',
          'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_at TEXT NOT NULL)',
        ],
        [
          'sessions',
          'CREATE TABLE sessions (token TEXT PRIMARY KEY, user_id INTEGER NOT NULL, created_at TEXT NOT NULL)',
        ],
      ),
      route('*', 'session'),
      route('/signup', 'sign-up'),
      nav('/signup', 'Sign up', 'guest'),
    ],
    verify: [
      `[ "$(get /signup)" = 200 ] && shows 'Create account' || fail "GET /signup shows no sign-up form"`,
      'sign_up Verifier',
      `[ "$(page /)" = 200 ] && shows 'Signed in as Verifier' || fail "the home page does not say who is signed in"`,
      'stop_app',
      `[ -s "$work/data/app.sqlite" ] || fail "data/app.sqlite was not written"`,
      'start_app',
      `[ "$(page /)" = 200 ] && shows 'Signed in as Verifier' || fail "the session did not survive a restart"`,
    ].join('\n'),
    summary: 'sign up (users and sessions tables, session cookie, Sign up page)',
    check: [
      { do: [{ goto: '/' }, { click: { role: 'link', name: 'Sign up' } }], expect: [{ path: '/signup' }] },
      {
        do: [
          { fill: { role: 'textbox', name: 'Name' }, text: '{name:cook}' },
          { fill: { role: 'textbox', name: 'Email' }, text: '{email:cook}' },
          { fill: { role: 'textbox', name: 'Password' }, text: '{password:cook}' },
          { click: { role: 'button', name: 'Create account' } },
        ],
      },
      {
        expect: [
          { see: 'Welcome, {name:cook}! Your account is ready.' },
          { see: 'Signed in as {name:cook}' },
        ],
      },
      { do: [{ goto: '/' }] },
      { expect: [{ see: 'Signed in as {name:cook}' }, { notSee: 'Your account is ready.' }] },
    ],
    regression: {
      path: SIGN_UP,
      find: '  startSession(ctx, userId);\n',
      replace: '',
      breaks: 'a new account is made but nobody is signed in afterwards',
    },
  },
  {
    key: 'log-out',
    area: 'accounts',
    category: 'functional',
    description:
      'Log out: the "Log out" button in the menu ends the session; the app no longer says who is signed in',
    steps: [
      'Sign up as a new user',
      'Click "Log out" in the menu',
      'The page says "You are logged out.", no longer says who is signed in, and the menu offers "Sign up" again',
      'Open the app again',
      'Still nobody is signed in',
    ],
    dependsOn: ['sign-up'],
    sourceDir: '02-log-out',
    insertions: [route('/logout', 'log-out'), nav('/logout', 'Log out', 'user', true)],
    verify: [
      'sign_up',
      `[ "$(post /logout)" = 303 ] || fail "POST /logout did not redirect"`,
      `page / >/dev/null; shows 'Signed in as' && fail "still signed in after logging out"`,
      'true',
    ].join('\n'),
    summary: 'log out (button in the menu ends the session)',
    check: [
      { do: [{ signUp: 'cook' }] },
      { do: [{ click: { role: 'button', name: 'Log out' } }] },
      {
        expect: [
          { see: 'You are logged out.' },
          { notSee: 'Signed in as' },
          { element: { role: 'link', name: 'Sign up' } },
        ],
      },
      { do: [{ goto: '/' }] },
      { expect: [{ notSee: 'Signed in as' }, { noElement: { role: 'button', name: 'Log out' } }] },
    ],
    regression: {
      path: 'app/features/log-out.js',
      find: '  endSession(ctx);\n',
      replace: '  ctx.user = null;\n',
      breaks: 'after "Log out" the user is still signed in',
    },
  },
  {
    key: 'log-in',
    area: 'accounts',
    category: 'functional',
    description:
      'Log in: a user signs in again with email and password on the "Log in" page; a wrong password is refused with "Email or password is wrong."',
    steps: [
      'Sign up as a new user, then log out',
      'Click "Log in" in the menu, enter that email with a wrong password and click "Log in"',
      'The page says "Email or password is wrong." and nobody is signed in',
      'Enter the right password and click "Log in"',
      'The page says "Welcome back, <name>." and the header says "Signed in as <name>"',
    ],
    dependsOn: ['sign-up', 'log-out'],
    sourceDir: '03-log-in',
    insertions: [route('/login', 'log-in'), nav('/login', 'Log in', 'guest')],
    verify: [
      'sign_up',
      'post /logout >/dev/null',
      `[ "$(post /login "email=$email" password=wrong-password)" = 401 ] && shows 'Email or password is wrong' || fail "a wrong password was not refused"`,
      `[ "$(post /login "email=$email" password=secret-pass-1)" = 303 ] || fail "the right password did not log in"`,
      `page / >/dev/null; shows 'Signed in as' || fail "not signed in after logging in"`,
    ].join('\n'),
    summary: 'log in (Log in page, wrong passwords refused)',
    check: [
      { do: [{ signUp: 'cook' }, { logOut: true }] },
      {
        do: [
          { click: { role: 'link', name: 'Log in' } },
          { fill: { role: 'textbox', name: 'Email' }, text: '{email:cook}' },
          { fill: { role: 'textbox', name: 'Password' }, text: 'not-the-password' },
          { click: { role: 'button', name: 'Log in' } },
        ],
      },
      { expect: [{ see: 'Email or password is wrong.' }, { notSee: 'Signed in as' }] },
      {
        do: [
          { fill: { role: 'textbox', name: 'Password' }, text: '{password:cook}' },
          { click: { role: 'button', name: 'Log in' } },
        ],
      },
      { expect: [{ see: 'Welcome back, {name:cook}.' }, { see: 'Signed in as {name:cook}' }] },
    ],
    regression: {
      path: LOG_IN,
      find: "if (!user || !passwordMatches(ctx.form.get('password') ?? '', user.password_hash)) {",
      replace: 'if (!user) {',
      breaks: 'any password logs in',
    },
  },
  {
    key: 'sign-up-rules',
    area: 'accounts',
    category: 'validation',
    description:
      'Sign-up rules: the sign-up form refuses an email that is not an address, a password under 8 characters and an email that already has an account, saying what to fix and keeping what was typed',
    steps: [
      'Open "Sign up", type a name, an email without "@" and a 5-character password, and click "Create account"',
      'The page lists "Enter a valid email address, like name@example.com." and "The password must be at least 8 characters long.", still holds the name typed, and nobody is signed in',
      'Sign up as a new user, log out, and sign up again with the same email',
      'The page says "An account with this email already exists. Log in instead." and nobody is signed in',
    ],
    dependsOn: ['sign-up', 'log-out'],
    sourceDir: '04-sign-up-checks',
    insertions: [
      insertAbove(
        SIGN_UP,
        IMPORTS,
        "import { emailProblem, passwordProblem, takenEmailProblem } from './sign-up-rules.js';",
      ),
      insertAbove(
        SIGN_UP,
        '// -- sign-up checks: add above this line --',
        'emailProblem,',
        'passwordProblem,',
        'takenEmailProblem,',
      ),
    ],
    verify: [
      `[ "$(post /signup name=Pat email=not-an-address password=long-enough-1)" = 400 ] && shows 'valid email' || fail "an invalid email was accepted"`,
      `[ "$(post /signup name=Pat email=pat.$RANDOM@example.test password=short)" = 400 ] && shows 'at least 8' || fail "a short password was accepted"`,
      'sign_up',
      'post /logout >/dev/null',
      `[ "$(post /signup name=Again "email=$email" password=secret-pass-2)" = 400 ] && shows 'already exists' || fail "a second account with the same email was made"`,
    ].join('\n'),
    summary: 'sign-up rules (valid email, 8-character password, one account per email)',
    check: [
      {
        do: [
          { goto: '/signup' },
          { fill: { role: 'textbox', name: 'Name' }, text: 'Pat {tag}' },
          { fill: { role: 'textbox', name: 'Email' }, text: 'pat-{tag}-example' },
          { fill: { role: 'textbox', name: 'Password' }, text: 'short' },
          { click: { role: 'button', name: 'Create account' } },
        ],
      },
      {
        expect: [
          { see: 'Enter a valid email address, like name@example.com.' },
          { see: 'The password must be at least 8 characters long.' },
          { see: 'Pat {tag}' },
          { notSee: 'Signed in as' },
        ],
      },
      {
        do: [
          { signUp: 'cook' },
          { logOut: true },
          { goto: '/signup' },
          { fill: { role: 'textbox', name: 'Name' }, text: 'Another {tag}' },
          { fill: { role: 'textbox', name: 'Email' }, text: '{email:cook}' },
          { fill: { role: 'textbox', name: 'Password' }, text: 'another-password' },
          { click: { role: 'button', name: 'Create account' } },
        ],
      },
      {
        expect: [
          { see: 'An account with this email already exists. Log in instead.' },
          { notSee: 'Signed in as' },
        ],
      },
    ],
    regression: {
      path: 'app/features/sign-up-rules.js',
      find: 'input.password.length < 8',
      replace: 'input.password.length < 4',
      breaks: 'a 5-character password is accepted',
    },
  },
];
