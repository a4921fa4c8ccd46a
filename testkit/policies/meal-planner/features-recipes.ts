/** The meal planner's recipes: the list, pages needing an account, the recipe form and its rules, the recipe page. */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';
import type { CheckAction } from './check-format.js';

const RECIPE_FORM = 'app/recipe-form.js';
const IMPORTS = '// -- imports: add above this line --';

/** Actions that add a recipe through "New recipe" (title, ingredients, and optionally servings and minutes). */
export function addRecipe(
  title: string,
  ingredients: string[],
  more: { servings?: string; minutes?: string; method?: string; tags?: string } = {},
): CheckAction[] {
  return [
    { goto: '/recipes/new' },
    { fill: { role: 'textbox', name: 'Title' }, text: title },
    ...(more.servings ? [{ fill: { role: 'spinbutton', name: 'Servings' }, text: more.servings }] : []),
    ...(more.minutes ? [{ fill: { role: 'spinbutton', name: 'Time in minutes' }, text: more.minutes }] : []),
    { fill: { role: 'textbox', name: 'Ingredients, one per line' }, text: ingredients.join('\n') },
    ...(more.method ? [{ fill: { role: 'textbox', name: 'Method' }, text: more.method }] : []),
    ...(more.tags ? [{ fill: { role: 'textbox', name: 'Tags, separated by commas' }, text: more.tags }] : []),
    { click: { role: 'button', name: 'Save recipe' } },
  ];
}

/** Shell: makes a recipe for the signed-in user and leaves its id in `$recipe`. */
export const NEW_RECIPE_SHELL = [
  `[ "$(post /recipes/new "title=Verify soup $RANDOM" servings=2 minutes=20 $'ingredients=200 g lentils\\n1 onion' method=Simmer.)" = 303 ] || fail "POST /recipes/new did not save a recipe"`,
  `get /recipes >/dev/null; recipe=$(grep -o 'href="/recipes/[0-9]*"' "$work/last" | head -1 | grep -o '[0-9]*')`,
  `[ -n "$recipe" ] || fail "the new recipe is not linked from /recipes"`,
].join('\n');

export const RECIPE_FEATURES: MealPlannerFeatureInput[] = [
  {
    key: 'my-recipes',
    area: 'recipes',
    category: 'functional',
    description:
      'My recipes: a signed-in user has a "My recipes" page listing their own recipes, newest first, with a note when there are none yet',
    steps: [
      'Sign up as a new user',
      'Click "My recipes" in the menu',
      'The page has the heading "My recipes" and says "No recipes yet."',
    ],
    dependsOn: ['sign-up'],
    sourceDir: '05-my-recipes',
    insertions: [
      migrations([
        'recipes',
        "CREATE TABLE recipes (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, title TEXT NOT NULL, servings INTEGER NOT NULL DEFAULT 2, minutes INTEGER NOT NULL DEFAULT 30, ingredients TEXT NOT NULL DEFAULT '', method TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL, updated_at TEXT NOT NULL)",
      ]),
      route('/recipes', 'my-recipes'),
      nav('/recipes', 'My recipes', 'user'),
    ],
    verify: [
      'sign_up',
      `[ "$(get /recipes)" = 200 ] && shows 'My recipes' && shows 'No recipes yet' || fail "GET /recipes does not show an empty My recipes page"`,
    ].join('\n'),
    summary: "My recipes page (recipes table, list of the user's recipes)",
    check: [
      { do: [{ signUp: 'cook' }] },
      { do: [{ click: { role: 'link', name: 'My recipes' } }], expect: [{ path: '/recipes' }] },
      { expect: [{ element: { role: 'heading', name: 'My recipes' } }, { see: 'No recipes yet.' }] },
    ],
    regression: {
      path: 'app/nav.js',
      find: "{ href: '/recipes', label: 'My recipes', for: 'user' },",
      replace: "{ href: '/recipes', label: 'My recipes', for: 'guest' },",
      breaks: 'the menu shows "My recipes" only to signed-out visitors',
    },
  },
  {
    key: 'log-in-required',
    area: 'accounts',
    category: 'security',
    description:
      'Pages that need an account send a signed-out visitor to "Log in" with "Please log in to see that page.", and back to that page after logging in',
    steps: [
      'Sign up as a new user and log out',
      'Open /recipes directly',
      'The "Log in" page opens and says "Please log in to see that page."',
      "Log in with that user's email and password",
      'The "My recipes" page opens',
    ],
    dependsOn: ['log-in', 'my-recipes'],
    sourceDir: '06-log-in-required',
    insertions: [
      route('*', 'log-in-required'),
      insertAbove('app/features/log-in.js', IMPORTS, "import { safeNext } from './log-in-required.js';"),
      insertAbove(
        'app/features/log-in.js',
        '// -- after log in: add redirects above this line --',
        "destination = safeNext(ctx.form.get('next')) ?? destination;",
      ),
    ],
    verify: [
      `code=$(get /recipes); [ "$code" = 303 ] || fail "GET /recipes without an account answered $code, not a redirect to /login"`,
      `curl -s -o /dev/null -w '%{redirect_url}' "$base/recipes" | grep -q '/login?next=%2Frecipes' || fail "the redirect does not go to /login?next=/recipes"`,
      'sign_up',
      'post /logout >/dev/null',
      `[ "$(post /login "email=$email" password=secret-pass-1 next=/recipes)" = 303 ] || fail "log in failed"`,
      `curl -s -o /dev/null -w '%{redirect_url}' -b "$jar" -X POST --data-urlencode "email=$email" --data-urlencode password=secret-pass-1 --data-urlencode next=//evil.example "$base/login" | grep -q evil && fail "log in redirects to another site"`,
      'true',
    ].join('\n'),
    summary: 'pages that need an account redirect to Log in and back',
    check: [
      { do: [{ signUp: 'cook' }, { logOut: true }] },
      { do: [{ goto: '/recipes' }] },
      { expect: [{ path: '/login' }, { see: 'Please log in to see that page.' }] },
      {
        do: [
          { fill: { role: 'textbox', name: 'Email' }, text: '{email:cook}' },
          { fill: { role: 'textbox', name: 'Password' }, text: '{password:cook}' },
          { click: { role: 'button', name: 'Log in' } },
        ],
      },
      { expect: [{ path: '/recipes' }, { element: { role: 'heading', name: 'My recipes' } }] },
    ],
    regression: {
      path: 'app/features/log-in.js',
      find: "destination = safeNext(ctx.form.get('next')) ?? destination;",
      replace: "destination = '/';",
      breaks: 'after logging in the user lands on the home page, not on the page they wanted',
    },
  },
  {
    key: 'new-recipe',
    area: 'recipes',
    category: 'functional',
    description:
      'New recipe: the "New recipe" page saves a recipe (title, servings, time in minutes, ingredients one per line, method); it then heads "My recipes"',
    steps: [
      'Sign up as a new user and click "New recipe" in the menu',
      'Fill in a unique title, servings 4, time 25 minutes, two ingredient lines and a method, and click "Save recipe"',
      'The "My recipes" page opens, says "Recipe saved: <title>." and lists the recipe with "25 min" and "serves 4"',
      'Add a second recipe the same way',
      'The second recipe is listed above the first',
    ],
    dependsOn: ['my-recipes'],
    sourceDir: '07-new-recipe',
    insertions: [route('/recipes/new', 'new-recipe'), nav('/recipes/new', 'New recipe', 'user')],
    verify: [
      'sign_up',
      `[ "$(get /recipes/new)" = 200 ] && shows 'Save recipe' || fail "GET /recipes/new shows no recipe form"`,
      NEW_RECIPE_SHELL,
      `[ "$(post /recipes/new title= ingredients=salt)" = 400 ] && shows 'Enter a title' || fail "a recipe without a title was saved"`,
    ].join('\n'),
    summary: 'New recipe page (recipe form, saved to My recipes)',
    check: [
      {
        do: [{ signUp: 'cook' }, { click: { role: 'link', name: 'New recipe' } }],
        expect: [{ path: '/recipes/new' }],
      },
      {
        do: [
          { fill: { role: 'textbox', name: 'Title' }, text: 'Lentil soup {tag}' },
          { fill: { role: 'spinbutton', name: 'Servings' }, text: '4' },
          { fill: { role: 'spinbutton', name: 'Time in minutes' }, text: '25' },
          {
            fill: { role: 'textbox', name: 'Ingredients, one per line' },
            text: '200 g red lentils\n1 onion',
          },
          { fill: { role: 'textbox', name: 'Method' }, text: 'Simmer everything for 20 minutes.' },
          { click: { role: 'button', name: 'Save recipe' } },
        ],
      },
      {
        expect: [
          { path: '/recipes' },
          { see: 'Recipe saved: Lentil soup {tag}.' },
          { count: 'Recipes', is: { equals: 1 } },
          { see: '25 min · serves 4' },
        ],
      },
      { do: addRecipe('Tomato salad {tag}', ['3 tomatoes']) },
      { expect: [{ order: ['Tomato salad {tag}', 'Lentil soup {tag}'], in: 'Recipes' }] },
    ],
    regression: {
      path: 'app/features/my-recipes.js',
      find: "'created_at DESC', 'id DESC'",
      replace: "'created_at ASC', 'id ASC'",
      breaks: 'new recipes are listed at the bottom instead of the top',
    },
  },
  {
    key: 'recipe-rules',
    area: 'recipes',
    category: 'validation',
    description:
      'Recipe rules: a recipe needs a title, servings from 1 to 50, a time from 0 to 1440 minutes and at least one ingredient; the form says what to fix and keeps what was typed',
    steps: [
      'Sign up as a new user and open "New recipe"',
      'Type a unique title, servings 0, time 2000 and no ingredients, and click "Save recipe"',
      'The page lists "Servings must be a whole number from 1 to 50.", "Time must be a whole number of minutes from 0 to 1440." and "Add at least one ingredient.", and the title is still in its box',
      'Open "My recipes"',
      'The recipe was not saved',
    ],
    dependsOn: ['new-recipe'],
    sourceDir: '08-recipe-checks',
    insertions: [
      insertAbove(
        RECIPE_FORM,
        IMPORTS,
        "import { ingredientsProblem, minutesProblem, servingsProblem } from './recipe-rules.js';",
      ),
      insertAbove(
        RECIPE_FORM,
        '// -- recipe checks: add above this line --',
        'servingsProblem,',
        'minutesProblem,',
        'ingredientsProblem,',
      ),
    ],
    verify: [
      'sign_up',
      `[ "$(post /recipes/new title=Bad servings=0 minutes=20 ingredients=salt)" = 400 ] && shows 'Servings must be' || fail "servings 0 was accepted"`,
      `[ "$(post /recipes/new title=Bad servings=2 minutes=2000 ingredients=salt)" = 400 ] && shows 'Time must be' || fail "2000 minutes was accepted"`,
      `[ "$(post /recipes/new title=Bad servings=2 minutes=20 ingredients=)" = 400 ] && shows 'at least one ingredient' || fail "a recipe without ingredients was accepted"`,
    ].join('\n'),
    summary: 'recipe rules (servings, time, ingredients)',
    check: [
      { do: [{ signUp: 'cook' }, { goto: '/recipes/new' }] },
      {
        do: [
          { fill: { role: 'textbox', name: 'Title' }, text: 'Odd stew {tag}' },
          { fill: { role: 'spinbutton', name: 'Servings' }, text: '0' },
          { fill: { role: 'spinbutton', name: 'Time in minutes' }, text: '2000' },
          { click: { role: 'button', name: 'Save recipe' } },
        ],
      },
      {
        expect: [
          { see: 'Servings must be a whole number from 1 to 50.' },
          { see: 'Time must be a whole number of minutes from 0 to 1440.' },
          { see: 'Add at least one ingredient.' },
          { see: 'Odd stew {tag}' },
        ],
      },
      { do: [{ goto: '/recipes' }] },
      { expect: [{ notSee: 'Odd stew {tag}' }, { see: 'No recipes yet.' }] },
    ],
    regression: {
      path: 'app/recipe-rules.js',
      find: "return recipe.ingredients.trim() ? undefined : 'Add at least one ingredient.';",
      replace: 'return undefined;',
      breaks: 'a recipe without ingredients is saved',
    },
  },
  {
    key: 'recipe-page',
    area: 'recipes',
    category: 'functional',
    description:
      'Recipe page: each recipe in "My recipes" links to its own page with its servings, time, ingredients list and method; another user gets "Page not found" there',
    steps: [
      'Sign up as a new user and add a recipe with two ingredients and a method',
      'Click the recipe\'s title in "My recipes"',
      'The recipe page shows the title as its heading, "Serves 3 · Ready in 40 minutes", both ingredients in the "Ingredients" list and the method',
      'Log out, sign up as a second user and open the same address',
      'The page says "Page not found" and does not show the recipe',
    ],
    dependsOn: ['new-recipe', 'log-out'],
    sourceDir: '09-recipe-page',
    insertions: [route('/recipes/:id', 'recipe-page')],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `[ "$(get "/recipes/$recipe")" = 200 ] && shows '200 g lentils' && shows 'Simmer.' || fail "GET /recipes/$recipe does not show the recipe"`,
      `[ "$(get /recipes/999999)" = 404 ] || fail "a missing recipe did not answer 404"`,
      'sign_up Other',
      `[ "$(get "/recipes/$recipe")" = 404 ] || fail "another user can see the recipe"`,
    ].join('\n'),
    summary: 'recipe page (facts, ingredients, method; owner only)',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Mushroom risotto {tag}', ['300 g rice', '250 g mushrooms'], {
            servings: '3',
            minutes: '40',
            method: 'Stir the rice with stock until creamy.',
          }),
        ],
      },
      { do: [{ click: { role: 'link', name: 'Mushroom risotto {tag}' } }, { rememberPath: 'recipe' }] },
      {
        expect: [
          { path: '/recipes/:id' },
          { element: { role: 'heading', name: 'Mushroom risotto {tag}' } },
          { see: 'Serves 3 · Ready in 40 minutes' },
          { count: 'Ingredients', is: { equals: 2 } },
          { see: '250 g mushrooms' },
          { see: 'Stir the rice with stock until creamy.' },
        ],
      },
      { do: [{ logOut: true }, { signUp: 'guest' }, { goto: '{path:recipe}' }] },
      { expect: [{ see: 'Page not found' }, { notSee: 'Mushroom risotto {tag}' }] },
    ],
    regression: {
      path: 'app/features/recipe-page.js',
      find: 'const mine = recipe.user_id === ctx.user?.id;',
      replace: 'const mine = true;',
      breaks: "any signed-in user can open another user's private recipe",
    },
  },
];

const RECIPE_PAGE = 'app/features/recipe-page.js';
const ACTIONS_MARKER = '// -- recipe actions: add above this line --';

/** One button or link on the recipe page (a line in its ACTIONS). */
export function recipeAction(line: string) {
  return insertAbove(RECIPE_PAGE, ACTIONS_MARKER, line);
}

/** One section on the recipe page (a line in its SECTIONS). */
export function recipeSection(line: string) {
  return insertAbove(RECIPE_PAGE, '// -- recipe sections: add above this line --', line);
}

/** A line for the recipe clean-up list of "Delete recipe" (rows of other tables that point at the recipe). */
export function recipeCleanup(table: string) {
  return insertAbove(
    'app/features/delete-recipe.js',
    '// -- recipe cleanup: add above this line --',
    `(db, id) => db.run('DELETE FROM ${table} WHERE recipe_id = ?', [id]),`,
  );
}
