import { describe, expect, it } from 'vitest';
import type { ObservedDocument } from '../../../agent/tools/browser-log.js';
import { groundPass } from '../../../evaluation/grounding.js';
import type { VerdictStep } from '../../../handoff/formats.js';
import { observedSession, passOf, type SessionMove } from './observed-session.js';

// Issue 28: two honest meal-planner passes of the scripted evaluator (testkit/policies/meal-planner/check-runner.ts)
// that grounding refused. F-004 quotes the name the app wrote back into the refused sign-up form; F-007 quotes a
// typed value of two lines.

const BASE = 'http://127.0.0.1:4100';

/** A document as the browser tools read it: each page load has its own time origin. */
const loaded = (origin: number, navigation = 'navigate'): ObservedDocument => ({ origin, navigation });

function page(path: string, title: string, lines: string[]): string {
  return [`Page URL: ${BASE}${path}`, `Page title: ${title}`, 'Snapshot:', '- main:', ...lines].join('\n');
}

/** The sign-up form with what its fields hold and the problems it lists. */
function signUpForm(name: string, email: string, problems: string[] = []): string {
  return page('/signup', 'Sign up', [
    '  - heading "Sign up" [level=1]',
    ...problems.map((problem) => `  - listitem: ${problem}`),
    `  - textbox "Name" [ref=e5]${name ? `: ${name}` : ''}`,
    `  - textbox "Email" [ref=e6]${email ? `: ${email}` : ''}`,
    '  - textbox "Password" [ref=e7]',
    '  - button "Create account" [ref=e8]',
    '  - link "Log in" [ref=e9]',
  ]);
}
const PROBLEMS = [
  'Enter a valid email address, like name@example.com.',
  'The password must be at least 8 characters long.',
];

function type(name: string, text: string, view: string, document: ObservedDocument): SessionMove {
  return {
    tool: 'browser_type',
    args: { ref: 'e5', text },
    target: { ref: 'e5', role: 'textbox', name },
    view,
    document,
  };
}
function click(role: string, name: string, view: string, document: ObservedDocument): SessionMove {
  return { tool: 'browser_click', args: { ref: 'e8' }, target: { ref: 'e8', role, name }, view, document };
}

const SIGN_UP_RULES = {
  description:
    'Sign-up rules: the sign-up form refuses an email that is not an address, a password under 8 characters and an email that already has an account, saying what to fix and keeping what was typed',
  steps: [
    'Open "Sign up", type a name, an email without "@" and a 5-character password, and click "Create account"',
    'The page lists "Enter a valid email address, like name@example.com." and "The password must be at least 8 characters long.", still holds the name typed, and nobody is signed in',
  ],
};

/** The scripted evaluator's pass, word for word (check-runner.ts). */
const REFUSED_SIGN_UP_PASS = passOf(SIGN_UP_RULES.steps, [
  'Opened /signup. Typed "Pat x1" into the textbox "Name". Typed "pat-x1-example" into the textbox "Email". Typed "short" into the textbox "Password". Clicked the button "Create account".',
  'The page shows "Enter a valid email address, like name@example.com.". The page shows "The password must be at least 8 characters long.". The page shows "Pat x1". The page no longer shows Signed in as.',
]);

/** Opening the form and filling it, all on the first document. */
const FILL: SessionMove[] = [
  {
    tool: 'browser_navigate',
    args: { url: `${BASE}/signup` },
    view: signUpForm('', ''),
    document: loaded(1),
  },
  type('Name', 'Pat x1', signUpForm('Pat x1', ''), loaded(1)),
  type('Email', 'pat-x1-example', signUpForm('Pat x1', 'pat-x1-example'), loaded(1)),
  type('Password', 'short', signUpForm('Pat x1', 'pat-x1-example'), loaded(1)),
];
const REFUSED = signUpForm('Pat x1', 'pat-x1-example', PROBLEMS);

function problems(steps: VerdictStep[], moves: SessionMove[], feature = SIGN_UP_RULES): string[] {
  const result = groundPass(feature, { steps }, observedSession(moves, BASE));
  return result.grounded ? [] : result.problems;
}

const TYPED_ONLY = /^Step 2 .* quotes "Pat x1", which the page showed only in a field you typed it into/;

describe('a field value the app wrote back after a page load', () => {
  it('grounds the name the refused sign-up page holds again (the POST answer is a new document)', () => {
    const moves = [...FILL, click('button', 'Create account', REFUSED, loaded(2))];
    expect(problems(REFUSED_SIGN_UP_PASS, moves)).toEqual([]);
  });

  it('still refuses the name when the form was checked in the page, with no page load since the typing', () => {
    const moves = [...FILL, click('button', 'Create account', REFUSED, loaded(1))];
    expect(problems(REFUSED_SIGN_UP_PASS, moves)).toEqual([expect.stringMatching(TYPED_ONLY)]);
  });

  it('refuses it when the page came back from history, where the browser itself restores a form', () => {
    const away = page('/login', 'Log in', ['  - heading "Log in" [level=1]']);
    const moves = [
      ...FILL,
      click('button', 'Create account', REFUSED, loaded(1)),
      click('link', 'Log in', away, loaded(2)),
      { tool: 'browser_navigate_back', args: {}, view: REFUSED, document: loaded(3, 'back_forward') },
    ];
    expect(problems(REFUSED_SIGN_UP_PASS, moves)).toEqual([expect.stringMatching(TYPED_ONLY)]);
  });

  it('refuses it when the page load emptied the field and the name was typed in again', () => {
    const moves = [
      ...FILL,
      click('button', 'Create account', signUpForm('', '', PROBLEMS), loaded(2)),
      type('Name', 'Pat x1', signUpForm('Pat x1', '', PROBLEMS), loaded(2)),
    ];
    expect(problems(REFUSED_SIGN_UP_PASS, moves)).toEqual([expect.stringMatching(TYPED_ONLY)]);
  });

  it('refuses it when the documents are unknown (a log from before they were recorded)', () => {
    const unknown = [...FILL, click('button', 'Create account', REFUSED, loaded(2))].map(
      ({ document: _document, ...move }) => move,
    );
    expect(problems(REFUSED_SIGN_UP_PASS, unknown)).toEqual([expect.stringMatching(TYPED_ONLY)]);
  });
});

const NEW_RECIPE = {
  description:
    'New recipe: the "New recipe" page saves a recipe (title, servings, time in minutes, ingredients one per line, method); it then heads "My recipes"',
  steps: [
    'Fill in a unique title, servings 4, time 25 minutes, two ingredient lines and a method, and click "Save recipe"',
    'The "My recipes" page opens, says "Recipe saved: <title>." and lists the recipe with "25 min" and "serves 4"',
  ],
};

function recipeForm(values: Record<string, string>): string {
  const field = (role: string, name: string) =>
    `  - ${role} "${name}"${values[name] ? `: ${values[name].replace(/\n/g, ' ')}` : ''}`;
  return page('/recipes/new', 'New recipe', [
    '  - heading "New recipe" [level=1]',
    field('textbox', 'Title'),
    field('spinbutton', 'Servings'),
    field('spinbutton', 'Time in minutes'),
    field('textbox', 'Ingredients, one per line'),
    field('textbox', 'Method'),
    '  - button "Save recipe"',
  ]);
}
const RECIPE_VALUES: [string, string, string][] = [
  ['textbox', 'Title', 'Lentil soup x1'],
  ['spinbutton', 'Servings', '4'],
  ['spinbutton', 'Time in minutes', '25'],
  ['textbox', 'Ingredients, one per line', '200 g red lentils\n1 onion'],
  ['textbox', 'Method', 'Simmer everything for 20 minutes.'],
];
const MY_RECIPES = page('/recipes', 'My recipes', [
  '  - heading "My recipes" [level=1]',
  '  - status: "Recipe saved: Lentil soup x1."',
  '  - list "Recipes":',
  '    - listitem: Lentil soup x1 25 min · serves 4',
]);

function fillRecipe(): SessionMove[] {
  const values: Record<string, string> = {};
  const moves: SessionMove[] = [
    {
      tool: 'browser_navigate',
      args: { url: `${BASE}/recipes/new` },
      view: recipeForm(values),
      document: loaded(1),
    },
  ];
  for (const [role, name, text] of RECIPE_VALUES) {
    values[name] = text;
    moves.push({
      tool: 'browser_type',
      args: { ref: 'e5', text },
      target: { ref: 'e5', role, name },
      view: recipeForm(values),
      document: loaded(1),
    });
  }
  moves.push(click('button', 'Save recipe', MY_RECIPES, loaded(2)));
  return moves;
}

describe('a typed value of several lines', () => {
  it('grounds the scripted evaluator’s new-recipe pass, whose ingredients quote spans two lines', () => {
    const steps = passOf(NEW_RECIPE.steps, [
      [
        'Typed "Lentil soup x1" into the textbox "Title".',
        'Typed "4" into the spinbutton "Servings".',
        'Typed "25" into the spinbutton "Time in minutes".',
        'Typed "200 g red lentils\n1 onion" into the textbox "Ingredients, one per line".',
        'Typed "Simmer everything for 20 minutes." into the textbox "Method".',
        'Clicked the button "Save recipe".',
      ].join(' '),
      'The address is now /recipes. The page shows "Recipe saved: Lentil soup x1.". The list "Recipes" has 1 item(s). The page shows "25 min · serves 4".',
    ]);
    expect(problems(steps, fillRecipe(), NEW_RECIPE)).toEqual([]);
  });

  it('does not let a stray mark swallow the next line: the quotes there are read and checked', () => {
    const fill = (evidence: string) =>
      passOf(NEW_RECIPE.steps, ['Filled in the form and clicked "Save recipe".', evidence]);
    const stray = 'The page said "Recipe saved: Lentil soup x1.\nThe list shows "25 min · serves 4".';
    expect(problems(fill(stray), fillRecipe(), NEW_RECIPE)).toEqual([]);
    const made = 'The page said "Recipe saved: Lentil soup x1.\nThe list shows "Tomato salad x1".';
    expect(problems(fill(made), fillRecipe(), NEW_RECIPE)).toEqual([
      expect.stringMatching(/^Step 2 .* quotes "Tomato salad x1" but the browser never showed that text/),
    ]);
  });
});
