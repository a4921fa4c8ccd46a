/** Sharing and keeping recipes: public recipes, Explore, copies of others' recipes, favourites. */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';
import type { CheckAction } from './check-format.js';
import { addRecipe, NEW_RECIPE_SHELL, recipeAction, recipeCleanup } from './features-recipes.js';

const IMPORTS = '// -- imports: add above this line --';
const RECIPE_PAGE = 'app/features/recipe-page.js';

function open(title: string): CheckAction {
  return { click: { role: 'link', name: title } };
}

/** The owner "cook" adds a recipe and makes it public, then logs out. */
export function sharedByCook(title: string, ingredients: string[]): CheckAction[] {
  return [
    { signUp: 'cook' },
    ...addRecipe(title, ingredients),
    open(title),
    { click: { role: 'button', name: 'Make public' } },
    { logOut: true },
  ];
}

/** Shell: as a second user, `$recipe` (made by the first, then made public) is reachable. */
export const SHARED_SHELL = [
  'sign_up',
  NEW_RECIPE_SHELL,
  `[ "$(post "/recipes/$recipe/visibility")" = 303 ] || fail "making the recipe public failed"`,
  'sign_up Other',
].join('\n');

export const SHARING_FEATURES: MealPlannerFeatureInput[] = [
  {
    key: 'make-public',
    area: 'sharing',
    category: 'functional',
    description:
      'Public or private: a recipe page tells its owner "This recipe is private: only you can see it." with a "Make public" button, which switches it to public (and "Make private" back)',
    steps: [
      'Sign up as a new user, add a recipe with a unique title and open it',
      'The page says "This recipe is private: only you can see it."',
      'Click "Make public"',
      'The page says "Now public: <title>." and "This recipe is public: everyone with an account can see it."',
      'Click "Make private"',
      'The page says "This recipe is private: only you can see it." again',
    ],
    dependsOn: ['recipe-page'],
    sourceDir: '21-make-public',
    insertions: [
      migrations([
        'recipes-visibility',
        "ALTER TABLE recipes ADD COLUMN visibility TEXT NOT NULL DEFAULT 'private'",
      ]),
      route('/recipes/:id/visibility', 'recipe-visibility'),
      insertAbove(RECIPE_PAGE, IMPORTS, "import { visibilityControl } from './recipe-visibility.js';"),
      recipeAction('(recipe, mine) => mine && visibilityControl(recipe),'),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `get "/recipes/$recipe" >/dev/null; shows 'This recipe is private' || fail "a new recipe is not private"`,
      `[ "$(post "/recipes/$recipe/visibility")" = 303 ] || fail "POST /recipes/$recipe/visibility did not redirect"`,
      `get "/recipes/$recipe" >/dev/null; shows 'This recipe is public' || fail "the recipe did not become public"`,
    ].join('\n'),
    summary: 'public or private recipes (Make public / Make private)',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Shakshuka {tag}', ['4 eggs', '400 g tomatoes']),
          open('Shakshuka {tag}'),
        ],
      },
      { expect: [{ see: 'This recipe is private: only you can see it.' }] },
      { do: [{ click: { role: 'button', name: 'Make public' } }] },
      {
        expect: [
          { see: 'Now public: Shakshuka {tag}.' },
          { see: 'This recipe is public: everyone with an account can see it.' },
        ],
      },
      { do: [{ click: { role: 'button', name: 'Make private' } }] },
      {
        expect: [
          { see: 'This recipe is private: only you can see it.' },
          { element: { role: 'button', name: 'Make public' } },
        ],
      },
    ],
    regression: {
      path: 'app/features/recipe-visibility.js',
      find: "const next = recipe.visibility === 'public' ? 'private' : 'public';",
      replace: "const next = 'public';",
      breaks: '"Make private" leaves the recipe public',
    },
  },
  {
    key: 'explore',
    area: 'sharing',
    category: 'security',
    description:
      '"Explore" lists every user\'s public recipes with "by <name>"; other users can open a public recipe but cannot edit or delete it, and private recipes never appear',
    steps: [
      'Sign up as a first user, add two recipes with unique titles, make one of them public, and log out',
      'Sign up as a second user and click "Explore" in the menu',
      'The public recipe is listed "by <first user>", the private one is not',
      'Click the public recipe',
      'Its page opens, without "Edit recipe" or "Delete recipe"',
    ],
    dependsOn: ['make-public', 'edit-recipe', 'delete-recipe'],
    sourceDir: '22-explore',
    insertions: [
      route('/explore', 'explore'),
      route('/recipes/:id', 'public-recipe-access'),
      nav('/explore', 'Explore', 'all'),
    ],
    verify: [
      SHARED_SHELL,
      `get /explore >/dev/null; shows 'Verify soup' || fail "Explore does not list the public recipe"`,
      `[ "$(get "/recipes/$recipe")" = 200 ] || fail "another user cannot open the public recipe"`,
      `shows 'Edit recipe' && fail "another user gets an Edit recipe link"`,
      `[ "$(post "/recipes/$recipe/delete")" = 404 ] || fail "another user could delete the public recipe"`,
    ].join('\n'),
    summary: 'Explore public recipes (read-only for others)',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Secret sauce {tag}', ['1 secret']),
          ...addRecipe('Open sandwich {tag}', ['2 slices of bread']),
          open('Open sandwich {tag}'),
          { click: { role: 'button', name: 'Make public' } },
          { logOut: true },
        ],
      },
      { do: [{ signUp: 'guest' }, { click: { role: 'link', name: 'Explore' } }] },
      {
        expect: [
          {
            list: 'Public recipes',
            has: ['Open sandwich {tag} by {name:cook}'],
            lacks: ['Secret sauce {tag}'],
          },
        ],
      },
      { do: [open('Open sandwich {tag}')] },
      {
        expect: [
          { element: { role: 'heading', name: 'Open sandwich {tag}' } },
          { noElement: { role: 'link', name: 'Edit recipe' } },
          { noElement: { role: 'button', name: 'Delete recipe' } },
        ],
      },
    ],
    regression: {
      path: 'app/features/public-recipe-access.js',
      find: "(recipe) => recipe.visibility === 'public'",
      replace: '(recipe) => recipe.visibility === undefined',
      breaks: 'a public recipe listed on Explore opens "Page not found" for other users',
    },
  },
  {
    key: 'copy-recipe',
    area: 'sharing',
    category: 'functional',
    description:
      'Copy a public recipe: on another user\'s public recipe, "Copy to my recipes" makes a private copy of it in your own recipes and opens it',
    steps: [
      'Sign up as a first user, add a recipe with a unique title, make it public and log out',
      'Sign up as a second user, open the recipe from "Explore" and click "Copy to my recipes"',
      'A recipe page opens saying "Copied to your recipes: <title>." with "Edit recipe" and "This recipe is private: only you can see it."',
      'Open "My recipes"',
      'The copy is listed',
    ],
    dependsOn: ['explore'],
    sourceDir: '23-copy-recipe',
    insertions: [
      route('/recipes/:id/copy', 'copy-recipe'),
      recipeAction(
        "(recipe, mine) => !mine && actionButton(`/recipes/${recipe.id}/copy`, 'Copy to my recipes'),",
      ),
    ],
    verify: [
      SHARED_SHELL,
      `[ "$(post "/recipes/$recipe/copy")" = 303 ] || fail "POST /recipes/$recipe/copy did not redirect"`,
      `get /recipes >/dev/null; shows 'Verify soup' || fail "the copy is not in the second user's recipes"`,
    ].join('\n'),
    summary: "copy another user's public recipe",
    check: [
      { do: sharedByCook('Focaccia {tag}', ['500 g flour', 'olive oil']) },
      {
        do: [
          { signUp: 'guest' },
          { goto: '/explore' },
          open('Focaccia {tag}'),
          { click: { role: 'button', name: 'Copy to my recipes' } },
        ],
      },
      {
        expect: [
          { see: 'Copied to your recipes: Focaccia {tag}.' },
          { element: { role: 'link', name: 'Edit recipe' } },
          { see: 'This recipe is private: only you can see it.' },
        ],
      },
      { do: [{ goto: '/recipes' }] },
      { expect: [{ list: 'Recipes', has: ['Focaccia {tag}'] }] },
    ],
    regression: {
      path: 'app/features/copy-recipe.js',
      find: 'const id = createRecipe(ctx.db, ctx.user.id, recipe);',
      replace: 'const id = recipe.id;',
      breaks: '"Copy to my recipes" says copied but makes no copy',
    },
  },
  {
    key: 'favourites',
    area: 'sharing',
    category: 'functional',
    description:
      'Favourites: "Add to favourites" on a recipe page marks it (the button then reads "Remove from favourites", also after a reload)',
    steps: [
      'Sign up as a new user, add a recipe with a unique title and open it',
      'Click "Add to favourites"',
      'The page says "Added to your favourites: <title>." and the button reads "Remove from favourites"',
      'Reload the page',
      'The button still reads "Remove from favourites"',
    ],
    dependsOn: ['recipe-page', 'make-public'],
    sourceDir: '24-favourites',
    insertions: [
      migrations([
        'favourites',
        'CREATE TABLE favourites (user_id INTEGER NOT NULL, recipe_id INTEGER NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (user_id, recipe_id))',
      ]),
      route('/recipes/:id/favourite', 'favourite'),
      insertAbove(RECIPE_PAGE, IMPORTS, "import { favouriteButton } from './favourite.js';"),
      recipeAction('(recipe, _mine, ctx) => favouriteButton(recipe, ctx),'),
      recipeCleanup('favourites'),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `[ "$(post "/recipes/$recipe/favourite")" = 303 ] || fail "POST /recipes/$recipe/favourite did not redirect"`,
      `get "/recipes/$recipe" >/dev/null; shows 'Remove from favourites' || fail "the recipe is not a favourite after adding it"`,
      `post "/recipes/$recipe/favourite" >/dev/null; get "/recipes/$recipe" >/dev/null; shows 'Add to favourites' || fail "the second click did not remove it"`,
    ].join('\n'),
    summary: 'favourite recipes (Add to / Remove from favourites)',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Apple crumble {tag}', ['4 apples']),
          open('Apple crumble {tag}'),
          { rememberPath: 'recipe' },
        ],
      },
      { do: [{ click: { role: 'button', name: 'Add to favourites' } }] },
      {
        expect: [
          { see: 'Added to your favourites: Apple crumble {tag}.' },
          { element: { role: 'button', name: 'Remove from favourites' } },
        ],
      },
      { do: [{ goto: '{path:recipe}' }] },
      { expect: [{ element: { role: 'button', name: 'Remove from favourites' } }] },
    ],
    regression: {
      path: 'app/features/favourite.js',
      find: "'SELECT 1 AS yes FROM favourites WHERE user_id = ? AND recipe_id = ?'",
      replace: "'SELECT 1 AS yes FROM favourites WHERE user_id = ? AND recipe_id = -?'",
      breaks: 'a favourite is forgotten: the button always says "Add to favourites"',
    },
  },
  {
    key: 'favourites-page',
    area: 'sharing',
    category: 'functional',
    description:
      '"Favourites" in the menu lists your favourite recipes, newest mark first, or says "No favourites yet."',
    steps: [
      'Sign up as a new user and click "Favourites" in the menu',
      'The page says "No favourites yet."',
      'Add two recipes with unique titles and mark the first one as a favourite',
      'Click "Favourites"',
      'Only the favourite recipe is listed',
    ],
    dependsOn: ['favourites'],
    sourceDir: '25-favourites-page',
    insertions: [route('/favourites', 'favourites'), nav('/favourites', 'Favourites', 'user')],
    verify: [
      'sign_up',
      `[ "$(get /favourites)" = 200 ] && shows 'No favourites yet' || fail "GET /favourites does not show the empty page"`,
      NEW_RECIPE_SHELL,
      `post "/recipes/$recipe/favourite" >/dev/null; get /favourites >/dev/null; shows "/recipes/$recipe" || fail "the favourite is not listed"`,
    ].join('\n'),
    summary: 'Favourites page',
    check: [
      { do: [{ signUp: 'cook' }, { click: { role: 'link', name: 'Favourites' } }] },
      { expect: [{ see: 'No favourites yet.' }] },
      {
        do: [
          ...addRecipe('Tarte tatin {tag}', ['6 apples']),
          ...addRecipe('Plain rice {tag}', ['rice']),
          open('Tarte tatin {tag}'),
          { click: { role: 'button', name: 'Add to favourites' } },
        ],
      },
      { do: [{ click: { role: 'link', name: 'Favourites' } }] },
      { expect: [{ list: 'Favourite recipes', has: ['Tarte tatin {tag}'], lacks: ['Plain rice {tag}'] }] },
    ],
    regression: {
      path: 'app/features/favourites.js',
      find: 'WHERE favourites.user_id = ? AND',
      replace: 'WHERE favourites.user_id != ? AND',
      breaks: "the Favourites page lists other people's favourites instead of yours",
    },
  },
];
