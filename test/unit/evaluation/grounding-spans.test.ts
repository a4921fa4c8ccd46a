import { describe, expect, it } from 'vitest';
import type { ObservationEntry } from '../../../agent/tools/browser-log.js';
import { groundPass } from '../../../evaluation/grounding.js';
import { type Action, reservedFrom } from '../../../evaluation/grounding-actions.js';
import type { VerdictStep } from '../../../handoff/formats.js';
import { observedSession, passOf, type SessionMove } from './observed-session.js';

// Issue 28: a step whose words ask for one action but which takes several ("Sign up as a new user": a form of
// three fields and a button) must not leave its leftover actions to the steps after it.

const BASE = 'http://127.0.0.1:4100';

/** A meal-planner page as the browser tools show it. */
function page(path: string, title: string, lines: string[]): string {
  return [`Page URL: ${BASE}${path}`, `Page title: ${title}`, 'Snapshot:', '- main:', ...lines].join('\n');
}

/** The sign-up form; its hint changes once a password is typed. */
function signUpForm(hint: string): string {
  return page('/signup', 'Sign up', [
    '  - heading "Sign up" [level=1]',
    '  - link "Log in"',
    '  - textbox "Name"',
    '  - textbox "Email"',
    '  - textbox "Password"',
    `  - paragraph: ${hint}`,
    '  - button "Sign up"',
  ]);
}
const HOME = page('/', 'Meal planner', [
  '  - heading "Meal planner" [level=1]',
  '  - paragraph: Welcome, Cook',
  '  - link "My recipes"',
  '  - button "Log out"',
]);
const LOG_IN = page('/login', 'Log in', [
  '  - heading "Log in" [level=1]',
  '  - paragraph: You are logged out.',
  '  - textbox "Email"',
  '  - textbox "Password"',
  '  - button "Log in"',
]);
const MY_RECIPES = page('/recipes', 'My recipes', [
  '  - heading "My recipes" [level=1]',
  '  - paragraph: No recipes yet.',
  '  - link "My recipes"',
  '  - button "Log out"',
]);

const field = (name: string, text: string, view: string): SessionMove => ({
  tool: 'browser_type',
  args: { ref: 'e9', text },
  target: { ref: 'e9', role: 'textbox', name },
  view,
});
const click = (role: string, name: string, view: string): SessionMove => ({
  tool: 'browser_click',
  args: { ref: 'e9' },
  target: { ref: 'e9', role, name },
  view,
});

/** Signing up: a navigation, three fields and a click (five actions for one clause). */
const SIGN_UP: SessionMove[] = [
  { tool: 'browser_navigate', args: { url: `${BASE}/signup` }, view: signUpForm('Choose a password') },
  field('Name', 'Cook', signUpForm('Choose a password')),
  field('Email', 'cook@example.com', signUpForm('Choose a password')),
  field('Password', 'secret-pass-1', signUpForm('Strong password')),
  click('button', 'Sign up', HOME),
];
const LOG_OUT_AND_IN: SessionMove[] = [
  click('button', 'Log out', LOG_IN),
  field('Email', 'cook@example.com', LOG_IN),
  field('Password', 'secret-pass-1', LOG_IN),
  click('button', 'Log in', MY_RECIPES),
];

function session(moves: SessionMove[]): readonly ObservationEntry[] {
  return observedSession(moves, BASE);
}

const FEATURE = {
  description: 'Log in: a user who logged out can log in again with their email and password',
  steps: [
    'Sign up as a new user',
    'Click "Log out" in the menu',
    'The page says "You are logged out."',
    "Log in with that user's email and password",
    'The page has the heading "My recipes" and says "No recipes yet."',
  ],
};

const HONEST = passOf(FEATURE.steps, [
  'Filled in the form and clicked "Sign up"; the page says "Welcome, Cook".',
  'Clicked "Log out".',
  'It says "You are logged out."',
  'Typed "cook@example.com" and "secret-pass-1" and clicked "Log in".',
  'The heading "My recipes" and the text "No recipes yet."',
]);

function changed(index: number, evidence: string): VerdictStep[] {
  return HONEST.map((step, at) => (at === index ? { ...step, evidence } : step));
}

function problems(steps: VerdictStep[], moves: SessionMove[], feature = FEATURE): string[] {
  const result = groundPass(feature, { steps }, session(moves));
  return result.grounded ? [] : result.problems;
}

describe('a step that takes more actions than its words count', () => {
  it('grounds an honest pass: signing up takes five actions, and the later steps find their own', () => {
    expect(problems(HONEST, [...SIGN_UP, ...LOG_OUT_AND_IN])).toEqual([]);
  });

  it('grounds it when the sign-up evidence is only what its form named', () => {
    // "secret-pass-1" is on no page (typed into a field); the fill that typed it is part of signing up.
    const named = changed(0, 'Typed "Cook", "cook@example.com" and "secret-pass-1", then clicked "Sign up".');
    expect(problems(named, [...SIGN_UP, ...LOG_OUT_AND_IN])).toEqual([]);
  });

  it('still refuses evidence quoted from a page shown before the step’s first action', () => {
    // "Welcome, Cook" was on screen after signing up, before "Log out" was clicked, and never again.
    const stale = changed(1, 'Clicked "Log out"; the page says "Welcome, Cook".');
    expect(problems(stale, [...SIGN_UP, ...LOG_OUT_AND_IN])).toEqual([
      expect.stringMatching(
        /^Step 2 "Click "Log out" in the menu" — your evidence quotes "Welcome, Cook", which the page showed only before/,
      ),
    ]);
    const staleLogIn = changed(3, 'Typed "cook@example.com"; the page said "Welcome, Cook".');
    expect(problems(staleLogIn, [...SIGN_UP, ...LOG_OUT_AND_IN])).toEqual([
      expect.stringMatching(/^Step 4 .* quotes "Welcome, Cook", which the page showed only before/),
    ]);
  });

  it('moves the evidence on to the action that named a quote, so a later outcome is not read from before it', () => {
    // The shape of the integration cheat ("1 item left" seen after adding Alpha, before Beta): the sign-up's
    // "secret-pass-1" is named by the fourth action, so the outcome after it must be seen from there on.
    const feature = {
      description: '',
      steps: ['Sign up as a new user', 'The page says "Choose a password"'],
    };
    const steps = passOf(feature.steps, ['Typed "secret-pass-1".', 'It says "Choose a password".']);
    expect(problems(steps, SIGN_UP, feature)).toEqual([
      expect.stringMatching(/^Step 2 .* quotes "Choose a password", which the page showed only before/),
    ]);
  });

  it('refuses the next step when the step’s own evidence lies past that step’s only action', () => {
    // Signing up lands on "My recipes" directly: "Click "My recipes"" was never done, and the sign-up's last click,
    // before which the sign-up's own "Welcome, Cook" was not yet on screen, is not that step's to take.
    const landing = page('/recipes', 'My recipes', [
      ...MY_RECIPES.split('\n').slice(4),
      '  - paragraph: Welcome, Cook',
    ]);
    const moves = [...SIGN_UP.slice(0, 4), click('button', 'Sign up', landing)];
    const feature = {
      description: 'My recipes: a signed-in user has a "My recipes" page',
      steps: [
        'Sign up as a new user',
        'Click "My recipes" in the menu',
        'The page has the heading "My recipes" and says "No recipes yet."',
      ],
    };
    const steps = passOf(feature.steps, [
      'Signed up; the page says "Welcome, Cook".',
      'Clicked "My recipes".',
      'The heading "My recipes" and "No recipes yet."',
    ]);
    expect(problems(steps, moves, feature)).toEqual([
      'Step 2 "Click "My recipes" in the menu" — it needs 1 browser action(s) after step 1 (step 1\'s evidence comes from up to action 5, so the actions up to there are that step\'s) and the session shows 0; perform the step as written, then quote what the page showed.',
    ]);
    // Signing up onto the home page and then clicking "My recipes": the same pass is grounded.
    const clicked = [...SIGN_UP, click('link', 'My recipes', MY_RECIPES)];
    expect(problems(steps, clicked, feature)).toEqual([]);
  });
  it('never carries a step by name onto the action the next step needs', () => {
    // Only the search typed "lentils": the sign-up may not claim it, or "Search for lentils" would have none.
    const moves = [...SIGN_UP, field('Search recipes', 'lentils', HOME)];
    const feature = { description: '', steps: ['Sign up as a new user', 'Search for lentils'] };
    const steps = passOf(feature.steps, ['Signed up and typed "lentils".', 'Typed "lentils".']);
    expect(problems(steps, moves, feature)).toEqual([
      expect.stringMatching(
        /^Step 1 .* quotes "lentils", which the page showed only in a field you typed it into/,
      ),
    ]);
  });
});

describe('the actions later steps need', () => {
  const actions: Action[] = [1, 2, 3, 4, 5].map((seq) => ({ seq, navigates: seq === 3, names: [] }));

  it('are taken as late as the session allows', () => {
    expect(reservedFrom(['any'], actions)).toBe(5);
    expect(reservedFrom(['navigate', 'any'], actions)).toBe(3);
    expect(reservedFrom(['any', 'navigate'], actions)).toBe(2);
  });

  it('keep nothing free when there are none, or the session cannot give them', () => {
    expect(reservedFrom([], actions)).toBe(Number.POSITIVE_INFINITY);
    expect(reservedFrom(['navigate', 'navigate'], actions)).toBe(Number.POSITIVE_INFINITY);
  });
});
