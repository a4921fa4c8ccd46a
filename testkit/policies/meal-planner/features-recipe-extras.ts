/** Around a recipe: comments (and deleting your own), ratings, and scaling to other servings. */
import { insertAbove, type MealPlannerFeatureInput, migrations, route } from './catalogue.js';
import type { CheckAction } from './check-format.js';
import { addRecipe, NEW_RECIPE_SHELL, recipeCleanup, recipeSection } from './features-recipes.js';
import { SHARED_SHELL, sharedByCook } from './features-sharing.js';

const IMPORTS = '// -- imports: add above this line --';
const RECIPE_PAGE = 'app/features/recipe-page.js';

function open(title: string): CheckAction {
  return { click: { role: 'link', name: title } };
}

export const RECIPE_EXTRA_FEATURES: MealPlannerFeatureInput[] = [
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
