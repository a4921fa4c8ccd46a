/** Sharing and keeping recipes: public recipes, Explore, copies, favourites, comments, ratings, and scaling. */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';
import type { CheckAction } from './check-format.js';
import {
  addRecipe,
  NEW_RECIPE_SHELL,
  recipeAction,
  recipeCleanup,
  recipeSection,
} from './features-recipes.js';

const IMPORTS = '// -- imports: add above this line --';
const RECIPE_PAGE = 'app/features/recipe-page.js';

function open(title: string): CheckAction {
  return { click: { role: 'link', name: title } };
}

/** The owner "cook" adds a recipe and makes it public, then logs out. */
function sharedByCook(title: string, ingredients: string[]): CheckAction[] {
  return [
    { signUp: 'cook' },
    ...addRecipe(title, ingredients),
    open(title),
    { click: { role: 'button', name: 'Make public' } },
    { logOut: true },
  ];
}

/** Shell: as a second user, `$recipe` (made by the first, then made public) is reachable. */
const SHARED_SHELL = [
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
  {
    key: 'comments',
    area: 'sharing',
    category: 'functional',
    description:
      'Comments: a recipe page has a "Comments" section where anyone who can see the recipe posts a comment ("Your comment", "Post comment"), listed as "<name>: <text>"',
    steps: [
      'Sign up as a first user, add a recipe with a unique title, make it public and log out',
      'Sign up as a second user, open the recipe from "Explore"; it says "No comments yet."',
      'Type a unique comment into "Your comment" and click "Post comment"',
      'The page says "Your comment is posted." and lists "<second user>: <comment>" under "Comments"',
    ],
    dependsOn: ['explore'],
    sourceDir: '26-comments',
    insertions: [
      migrations([
        'comments',
        'CREATE TABLE comments (id INTEGER PRIMARY KEY, recipe_id INTEGER NOT NULL, user_id INTEGER NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL)',
      ]),
      route('/recipes/:id/comments', 'post-comment'),
      insertAbove(RECIPE_PAGE, IMPORTS, "import { commentsSection } from '../comments.js';"),
      recipeSection('commentsSection,'),
      recipeCleanup('comments'),
    ],
    verify: [
      SHARED_SHELL,
      `[ "$(post "/recipes/$recipe/comments" 'body=Lovely <b>soup</b>')" = 303 ] || fail "posting a comment failed"`,
      `get "/recipes/$recipe" >/dev/null; shows 'Lovely &lt;b&gt;soup&lt;/b&gt;' || fail "the comment is not shown (escaped)"`,
    ].join('\n'),
    summary: 'comments on recipes',
    check: [
      { do: sharedByCook('Ramen {tag}', ['noodles', 'broth']) },
      {
        do: [{ signUp: 'guest' }, { goto: '/explore' }, open('Ramen {tag}')],
        expect: [{ see: 'No comments yet.' }],
      },
      {
        do: [
          { fill: { role: 'textbox', name: 'Your comment' }, text: 'Added chili oil <b>{tag}</b>' },
          { click: { role: 'button', name: 'Post comment' } },
        ],
      },
      {
        expect: [
          { see: 'Your comment is posted.' },
          { list: 'Comments', has: ['{name:guest}: Added chili oil <b>{tag}</b>'] },
        ],
      },
    ],
    regression: {
      path: 'app/comments.js',
      find: 'WHERE recipe_id = ? ORDER BY',
      replace: 'WHERE recipe_id = -? ORDER BY',
      breaks: 'posted comments never show on the recipe page',
    },
  },
  {
    key: 'delete-comment',
    area: 'sharing',
    category: 'functional',
    description:
      'Delete a comment: your own comments have a "Delete comment" button that asks "Delete this comment?" and removes it',
    steps: [
      'Sign up as a new user, add a recipe with a unique title, open it and post a unique comment',
      'Click "Delete comment" and confirm',
      'The page says "Your comment is deleted." and "No comments yet."',
    ],
    dependsOn: ['comments'],
    sourceDir: '27-delete-comment',
    insertions: [
      route('/comments/:id/delete', 'delete-comment'),
      insertAbove(
        'app/comments.js',
        IMPORTS,
        "import { deleteCommentButton } from './features/delete-comment.js';",
      ),
      insertAbove('app/comments.js', '// -- comment actions: add above this line --', 'deleteCommentButton,'),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `post "/recipes/$recipe/comments" 'body=Remove me' >/dev/null`,
      `get "/recipes/$recipe" >/dev/null; comment=$(grep -o 'action="/comments/[0-9]*/delete"' "$work/last" | grep -o '[0-9]*' | head -1)`,
      `[ -n "$comment" ] || fail "no Delete comment button"`,
      `[ "$(post "/comments/$comment/delete")" = 303 ] || fail "deleting the comment failed"`,
      `get "/recipes/$recipe" >/dev/null; shows 'Remove me' && fail "the comment is still there"`,
      'true',
    ].join('\n'),
    summary: 'delete your own comments',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Pancakes {tag}', ['2 eggs']),
          open('Pancakes {tag}'),
          { fill: { role: 'textbox', name: 'Your comment' }, text: 'Too sweet {tag}' },
          { click: { role: 'button', name: 'Post comment' } },
        ],
      },
      {
        do: [{ click: { role: 'button', name: 'Delete comment' } }],
        expect: [{ dialogSaid: 'Delete this comment?' }],
      },
      { expect: [{ see: 'Your comment is deleted.' }, { see: 'No comments yet.' }] },
    ],
    regression: {
      path: 'app/features/delete-comment.js',
      find: "  ctx.db.run('DELETE FROM comments WHERE id = ?', [comment.id]);\n",
      replace: '',
      breaks: '"Delete comment" says deleted but the comment stays',
    },
  },
  {
    key: 'ratings',
    area: 'sharing',
    category: 'functional',
    description:
      'Ratings: a recipe page has "Your rating" (1 to 5) and "Rate"; it shows "Rated <average> out of 5 from <n> rating(s)." and rating again replaces your rating',
    steps: [
      'Sign up as a new user, add a recipe with a unique title and open it',
      'The page says "Not rated yet."',
      'Choose "4 – good" in "Your rating" and click "Rate"',
      'The page says "Rated 4.0 out of 5 from 1 rating."',
      'Choose "2 – meh" and click "Rate"',
      'The page says "Rated 2.0 out of 5 from 1 rating."',
    ],
    dependsOn: ['recipe-page', 'make-public'],
    sourceDir: '28-ratings',
    insertions: [
      migrations([
        'ratings',
        'CREATE TABLE ratings (user_id INTEGER NOT NULL, recipe_id INTEGER NOT NULL, stars INTEGER NOT NULL, PRIMARY KEY (user_id, recipe_id))',
      ]),
      route('/recipes/:id/rating', 'rate-recipe'),
      insertAbove(RECIPE_PAGE, IMPORTS, "import { ratingSection } from './rate-recipe.js';"),
      recipeSection('ratingSection,'),
      recipeCleanup('ratings'),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `[ "$(post "/recipes/$recipe/rating" stars=4)" = 303 ] || fail "rating failed"`,
      `post "/recipes/$recipe/rating" stars=2 >/dev/null; get "/recipes/$recipe" >/dev/null; shows 'Rated 2.0 out of 5 from 1 rating.' || fail "rating again did not replace the rating"`,
      `post "/recipes/$recipe/rating" stars=9 >/dev/null; get "/recipes/$recipe" >/dev/null; shows 'Rated 2.0' || fail "9 stars was accepted"`,
    ].join('\n'),
    summary: 'rate recipes (1 to 5, average shown)',
    check: [
      { do: [{ signUp: 'cook' }, ...addRecipe('Gazpacho {tag}', ['1 kg tomatoes']), open('Gazpacho {tag}')] },
      { expect: [{ see: 'Not rated yet.' }] },
      {
        do: [
          { select: { role: 'combobox', name: 'Your rating' }, option: '4 – good' },
          { click: { role: 'button', name: 'Rate' } },
        ],
      },
      { expect: [{ see: 'Rated 4.0 out of 5 from 1 rating.' }] },
      {
        do: [
          { select: { role: 'combobox', name: 'Your rating' }, option: '2 – meh' },
          { click: { role: 'button', name: 'Rate' } },
        ],
      },
      { expect: [{ see: 'Rated 2.0 out of 5 from 1 rating.' }] },
    ],
    regression: {
      path: 'app/features/rate-recipe.js',
      find: "  ctx.db.run('DELETE FROM ratings WHERE user_id = ? AND recipe_id = ?', [ctx.user.id, recipe.id]);\n",
      replace:
        "  ctx.db.run('DELETE FROM ratings WHERE user_id = ? AND recipe_id = ? AND stars = 0', [ctx.user.id, recipe.id]);\n",
      breaks: 'rating again fails instead of replacing your rating',
    },
  },
  {
    key: 'scale-recipe',
    area: 'sharing',
    category: 'functional',
    description:
      'Scale a recipe: "Servings to cook" and "Scale" on a recipe page recompute the quantities at the start of each ingredient line',
    steps: [
      'Sign up as a new user, add a recipe for 2 servings with the ingredients "200 g lentils", "1/2 lemon" and "salt to taste", and open it',
      'Type 6 into "Servings to cook" and click "Scale"',
      'The page says "Ingredients for 6 servings (the recipe makes 2)." and lists "600 g lentils", "1.5 lemon" and "salt to taste"',
    ],
    dependsOn: ['recipe-page'],
    sourceDir: '29-scale-recipe',
    insertions: [route('/recipes/:id', 'scale-recipe')],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `get "/recipes/$recipe?servings=6" >/dev/null; shows '600 g lentils' && shows '3 onion' || fail "scaling to 6 servings did not triple the quantities"`,
    ].join('\n'),
    summary: 'scale a recipe to other servings',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Lemon dal {tag}', ['200 g lentils', '1/2 lemon', 'salt to taste'], { servings: '2' }),
          open('Lemon dal {tag}'),
        ],
      },
      {
        do: [
          { fill: { role: 'spinbutton', name: 'Servings to cook' }, text: '6' },
          { click: { role: 'button', name: 'Scale' } },
        ],
      },
      {
        expect: [
          { see: 'Ingredients for 6 servings (the recipe makes 2).' },
          { list: 'Ingredients', has: ['600 g lentils', '1.5 lemon', 'salt to taste'] },
        ],
      },
    ],
    regression: {
      path: 'app/features/scale-recipe.js',
      find: 'scaleLine(line, asked / recipe.servings)',
      replace: 'scaleLine(line, asked)',
      breaks: 'scaling multiplies by the servings asked instead of by the ratio',
    },
  },
];
