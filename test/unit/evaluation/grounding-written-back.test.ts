import { describe, expect, it } from 'vitest';
import type { ObservedDocument } from '../../../agent/tools/browser-log.js';
import { groundPass } from '../../../evaluation/grounding.js';
import type { VerdictStep } from '../../../handoff/formats.js';
import { ACCOUNT_FEATURES } from '../../../testkit/policies/meal-planner/features-accounts.js';
import { RECIPE_FEATURES } from '../../../testkit/policies/meal-planner/features-recipes.js';
import { observedSession, passOf, type SessionMove } from './observed-session.js';

// Issue 28: two honest meal-planner passes of the scripted evaluator (testkit/policies/meal-planner/check-runner.ts)
// that grounding refused. F-004 quotes the name the app wrote back into the refused sign-up form; F-007 quotes a
// typed value of two lines.

const BASE = 'http://127.0.0.1:4100';

/** The first `count` steps of a meal-planner feature, as the catalogue has it. */
function featureStart(
  features: readonly { key: string; description: string; steps: string[] }[],
  key: string,
  count: number,
) {
  const feature = features.find((candidate) => candidate.key === key);
  if (!feature) throw new Error(`no meal-planner feature ${key}`);
  return { description: feature.description, steps: feature.steps.slice(0, count) };
}

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

const SIGN_UP_RULES = featureStart(ACCOUNT_FEATURES, 'sign-up-rules', 2);

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

/** Steps 2 and 3 of "new-recipe": filling in the form and what "My recipes" shows then. */
const NEW_RECIPE = (({ description, steps }) => ({ description, steps: steps.slice(1) }))(
  featureStart(RECIPE_FEATURES, 'new-recipe', 3),
);

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

/** Opening the recipe form and typing each value into its field, on one document. */
function typeRecipe(fields: readonly [string, string, string][]): SessionMove[] {
  const values: Record<string, string> = {};
  const opened: SessionMove = {
    tool: 'browser_navigate',
    args: { url: `${BASE}/recipes/new` },
    view: recipeForm(values),
    document: loaded(1),
  };
  return [
    opened,
    ...fields.map(([role, name, text]): SessionMove => {
      values[name] = text;
      const view = recipeForm(values);
      return {
        tool: 'browser_type',
        args: { ref: 'e5', text },
        target: { ref: 'e5', role, name },
        view,
        document: loaded(1),
      };
    }),
  ];
}

function fillRecipe(): SessionMove[] {
  return [...typeRecipe(RECIPE_VALUES), click('button', 'Save recipe', MY_RECIPES, loaded(2))];
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

const RECIPE_PAGE = featureStart(RECIPE_FEATURES, 'recipe-page', 3);

describe('a step that typed what only a later page shows', () => {
  it('places a typed value at its typing, not at the next step’s page that first shows it as text', () => {
    // F-009: the method typed in step 1 is page text only on the recipe page, after step 2's click.
    const moves = typeRecipe([
      ['textbox', 'Title', 'Mushroom risotto x1'],
      ['textbox', 'Ingredients, one per line', '300 g rice\n250 g mushrooms'],
      ['textbox', 'Method', 'Stir the rice with stock until creamy.'],
    ]);
    const list = page('/recipes', 'My recipes', ['  - link "Mushroom risotto x1"']);
    const recipe = page('/recipes/5', 'Mushroom risotto x1', [
      '  - heading "Mushroom risotto x1" [level=1]',
      '  - paragraph: Serves 3 · Ready in 40 minutes',
      '  - list "Ingredients":',
      '    - listitem: 300 g rice',
      '    - listitem: 250 g mushrooms',
      '  - paragraph: Stir the rice with stock until creamy.',
    ]);
    moves.push(
      click('button', 'Save recipe', list, loaded(2)),
      click('link', 'Mushroom risotto x1', recipe, loaded(3)),
    );
    const steps = passOf(RECIPE_PAGE.steps, [
      'Typed "Mushroom risotto x1" into the textbox "Title". Typed "300 g rice\n250 g mushrooms" into the textbox "Ingredients, one per line". Typed "Stir the rice with stock until creamy." into the textbox "Method". Clicked the button "Save recipe".',
      'Clicked the link "Mushroom risotto x1". Noted the address /recipes/5.',
      'The page has the heading "Mushroom risotto x1". The page shows "Serves 3 · Ready in 40 minutes". The page shows "250 g mushrooms". The page shows "Stir the rice with stock until creamy.".',
    ]);
    expect(problems(steps, moves, RECIPE_PAGE)).toEqual([]);
  });
});
