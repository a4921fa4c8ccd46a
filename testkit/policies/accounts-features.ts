/**
 * The scripted model's knowledge of the accounts example (examples/accounts/app_spec.md): its three features
 * (what a generator adds, how it checks its work from the shell) and the evaluator's browser check of each.
 * Every check signs up a user of its own (a username carrying the session tag) with one fixed password, so its
 * recorded check signs up and logs in by itself when it replays: a password is never made unique on replay
 * (checks/replay-data.ts), a username typed twice always is.
 */

import type { BrowserCheck } from './evaluator-checks.js';
import { expect, type PageDriver } from './evaluator-page.js';
import {
  registerApi,
  registerClient,
  type ScriptedFeature,
  scriptedFeatureListJson,
  served,
} from './todo-features.js';

/** The password of every scripted account (typed into the "Password" field as is). */
export const SCRIPTED_PASSWORD = 'correct horse 42';
const NOTES_LIST = 'Your notes';

/** Shell helpers over a cookie jar: `post PATH JSON [jar]` prints the status code, `body` the last body. */
const JAR = [
  `post() { curl -s -o "$work/body" -w '%{http_code}' -c "$work/\${3:-jar}" -b "$work/\${3:-jar}" -X POST -H 'content-type: application/json' -d "$2" "$base$1"; }`,
  `get() { curl -s -o "$work/body" -w '%{http_code}' -b "$work/\${2:-jar}" "$base$1"; }`,
  'body() { cat "$work/body"; }',
];

const ACCOUNT = `{"username":"verify-user","password":"${SCRIPTED_PASSWORD}"}`;

/** The accounts example's features, in build order. */
export const ACCOUNTS_FEATURES: readonly ScriptedFeature[] = [
  {
    check: 'signUp',
    category: 'functional',
    description:
      'Sign up: creating an account with a new username and a password signs the person in ("Signed in as <username>")',
    steps: [
      'Open the app and click the "Sign up" link',
      'Type a new unique username into "Username" and a password of at least 8 characters into "Password", then click "Create account"',
      'The home page says "Signed in as <username>"',
    ],
    sourceDir: '01-sign-up',
    insertions: [registerApi('signup.js'), registerClient('signup.js')],
    verify: [
      ...JAR,
      `[ "$(post /api/signup '${ACCOUNT}')" = 201 ] || fail "POST /api/signup did not create the account: $(body)"`,
      `[ "$(get /api/me)" = 200 ] && body | grep -q '"verify-user"' || fail "the new account is not signed in: $(body)"`,
      `[ "$(post /api/signup '${ACCOUNT}' other)" = 409 ] || fail "a taken username was accepted: $(body)"`,
      `[ "$(post /api/signup '{"username":"shorty","password":"short"}' other)" = 400 ] || fail "a short password was accepted"`,
      served('signup.js', 'Create account'),
    ].join('\n'),
    summary: 'sign up (POST /api/signup, the /signup page)',
  },
  {
    check: 'logIn',
    category: 'functional',
    description:
      'Log in and log out: "Log out" signs out; the log-in page signs in again with the username and password, and refuses a wrong password',
    steps: [
      'Open the app and sign up with a new unique username and a password',
      'Click "Log out"',
      'The page says "You are not signed in."',
      'Click "Log in", type the same username and password, and click the "Log in" button',
      'The home page says "Signed in as <username>"',
      'Log out, then log in with the same username and a wrong password',
      'The log-in page says "Wrong username or password"',
    ],
    sourceDir: '02-log-in',
    insertions: [registerApi('login.js'), registerClient('login.js')],
    verify: [
      ...JAR,
      `[ "$(post /api/signup '${ACCOUNT}')" = 201 ] || fail "POST /api/signup failed: $(body)"`,
      `[ "$(post /api/logout '{}')" = 200 ] || fail "POST /api/logout failed: $(body)"`,
      `get /api/me >/dev/null; body | grep -q '"username":null' || fail "still signed in after logging out: $(body)"`,
      `[ "$(post /api/login '${ACCOUNT}')" = 200 ] || fail "POST /api/login refused the right password: $(body)"`,
      `[ "$(post /api/login '{"username":"verify-user","password":"wrong password"}' other)" = 401 ] || fail "a wrong password was accepted"`,
      served('login.js', 'Log out'),
    ].join('\n'),
    summary: 'log in and log out (POST /api/login, /api/logout, the /login page)',
  },
  {
    check: 'notes',
    category: 'functional',
    description:
      'Private notes: a signed-in person adds notes ("New note", "Add note") listed under "Your notes", kept across log-ins and shown to nobody else',
    steps: [
      'Open the app and sign up with a new unique username',
      'Type a note with a unique text into "New note" and click "Add note"',
      'The note is listed under "Your notes"',
      'Log out and sign up as another new user',
      '"Your notes" does not list the first user\'s note',
      'Log out and log in as the first user again',
      'The note is listed under "Your notes" again',
    ],
    sourceDir: '03-notes',
    insertions: [registerApi('notes.js'), registerClient('notes.js')],
    verify: [
      ...JAR,
      `[ "$(post /api/signup '${ACCOUNT}')" = 201 ] || fail "POST /api/signup failed: $(body)"`,
      `[ "$(post /api/notes '{"text":"verify note"}')" = 201 ] || fail "POST /api/notes failed: $(body)"`,
      `get /api/notes >/dev/null; body | grep -q '"verify note"' || fail "the note is not listed: $(body)"`,
      `[ "$(post /api/signup '{"username":"verify-other","password":"${SCRIPTED_PASSWORD}"}' other)" = 201 ] || fail "a second account failed"`,
      `get /api/notes other >/dev/null; body | grep -q '"verify note"' && fail "another account sees the note"`,
      served('notes.js', 'Add note'),
    ].join('\n'),
    summary: 'private notes (GET/POST /api/notes, "Your notes")',
  },
];

/** What each feature needs first, by list position (1-based): every check signs up; notes also log out. */
const ACCOUNTS_DEPENDENCIES: readonly (readonly number[])[] = [[], [1], [1, 2]];

/** `feature_list.json` of the accounts example as its initializer writes it. */
export function accountsFeatureListJson(count = ACCOUNTS_FEATURES.length): string {
  return scriptedFeatureListJson(ACCOUNTS_FEATURES, ACCOUNTS_DEPENDENCIES, count);
}

/** True when the text is the accounts example's spec. */
export function isAccountsSpec(text: string): boolean {
  return /Create account/.test(text) && /Signed in as/.test(text) && /Your notes/.test(text);
}

/** Opens the app, follows "Sign up" and creates the account; the page then says who is signed in. */
function signUp(page: PageDriver, username: string, open = true): string {
  if (open) page.open();
  page.click(page.ref('link', 'Sign up'), 'the "Sign up" link');
  typeAccount(page, username);
  page.click(page.ref('button', 'Create account'), 'the "Create account" button');
  return signedInAs(page, username);
}

function typeAccount(page: PageDriver, username: string, password = SCRIPTED_PASSWORD): void {
  page.typeAll([
    { ref: page.ref('textbox', 'Username'), text: username, submit: false },
    { ref: page.ref('textbox', 'Password'), text: password, submit: false },
  ]);
}

function signedInAs(page: PageDriver, username: string): string {
  const text = `Signed in as ${username}`;
  page.waitFor(text);
  expect(page.shows(text), `The page does not say "${text}". ${page.summary()}`);
  return `The page says "${text}".`;
}

function logOut(page: PageDriver): string {
  page.click(page.ref('button', 'Log out'), 'the "Log out" button');
  page.waitFor('You are not signed in.');
  return 'Clicked "Log out"; the page says "You are not signed in."';
}

function logIn(page: PageDriver, username: string, password = SCRIPTED_PASSWORD): void {
  page.click(page.ref('link', 'Log in'), 'the "Log in" link');
  typeAccount(page, username, password);
  page.click(page.ref('button', 'Log in'), 'the "Log in" button');
}

const signUpCheck: BrowserCheck = (page, steps, tag) => {
  const username = `ann-${tag}`;
  steps.run(0, () => {
    page.open();
    page.click(page.ref('link', 'Sign up'), 'the "Sign up" link');
    page.ref('button', 'Create account');
    return 'Opened the app and clicked "Sign up": the page shows the "Create account" button.';
  });
  steps.run(1, () => {
    typeAccount(page, username);
    page.click(page.ref('button', 'Create account'), 'the "Create account" button');
    return `Typed "${username}" into "Username" and a password into "Password", then clicked "Create account".`;
  });
  steps.run(2, () => signedInAs(page, username));
};

const logInCheck: BrowserCheck = (page, steps, tag) => {
  const username = `ann-${tag}`;
  steps.run(0, () => `Signed up as "${username}". ${signUp(page, username)}`);
  steps.run(1, () => logOut(page));
  steps.run(2, () => {
    expect(!page.shows(`Signed in as ${username}`), `The page still says "Signed in as ${username}".`);
    return 'The page says "You are not signed in."';
  });
  steps.run(3, () => {
    logIn(page, username);
    return `Clicked "Log in", typed "${username}" and the password, clicked the "Log in" button.`;
  });
  steps.run(4, () => signedInAs(page, username));
  steps.run(5, () => {
    logOut(page);
    logIn(page, username, 'wrong password');
    page.waitFor('Wrong username or password');
    return `Logged out, typed "${username}" and a wrong password, and clicked the "Log in" button.`;
  });
  steps.run(6, () => {
    const alert = page.textOf('alert');
    expect(alert.includes('Wrong username or password'), `The alert says "${alert}".`);
    return `The log-in page says "${alert}".`;
  });
};

const notesCheck: BrowserCheck = (page, steps, tag) => {
  const ann = `ann-${tag}`;
  const bob = `bob-${tag}`;
  const note = `Buy stamps ${tag}`;
  const listed = (present: boolean) => {
    const items = page.items(NOTES_LIST);
    expect(
      items.includes(note) === present,
      `"${NOTES_LIST}" lists ${items.length} note(s): ${items.join('; ')}.`,
    );
    return present
      ? `"${NOTES_LIST}" lists "${note}".`
      : `"${NOTES_LIST}" lists ${items.length} note(s), not the first user's.`;
  };
  steps.run(0, () => signUp(page, ann));
  steps.run(1, () => {
    page.typeAll([{ ref: page.ref('textbox', 'New note'), text: note, submit: false }]);
    page.click(page.ref('button', 'Add note'), 'the "Add note" button');
    page.waitFor(note);
    return `Typed "${note}" into "New note" and clicked "Add note".`;
  });
  steps.run(2, () => listed(true));
  steps.run(3, () => `${logOut(page)} ${signUp(page, bob, false)}`);
  steps.run(4, () => listed(false));
  steps.run(5, () => {
    logOut(page);
    logIn(page, ann);
    return signedInAs(page, ann);
  });
  steps.run(6, () => {
    page.waitFor(note);
    return listed(true);
  });
};

/** The check of each accounts feature. */
export const ACCOUNTS_CHECKS: Record<string, BrowserCheck> = {
  signUp: signUpCheck,
  logIn: logInCheck,
  notes: notesCheck,
};
