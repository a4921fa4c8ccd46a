/** Changing recipes: editing, deleting (after a question) and duplicating. */
import { type MealPlannerFeatureInput, route } from './catalogue.js';
import { addRecipe, NEW_RECIPE_SHELL, recipeAction } from './features-recipes.js';

export const RECIPE_CHANGE_FEATURES: MealPlannerFeatureInput[] = [
  {
    key: 'edit-recipe',
    area: 'recipes',
    category: 'functional',
    description:
      'Edit a recipe: the "Edit recipe" link on a recipe page opens the recipe form filled in; "Save changes" updates the recipe',
    steps: [
      'Sign up as a new user and add a recipe with a unique title',
      'Open the recipe and click "Edit recipe"',
      "The form holds the recipe's title",
      'Change the title to another unique title and the time to 15 minutes, and click "Save changes"',
      'The recipe page shows the new title, "Ready in 15 minutes" and "Changes saved: <new title>."',
      'Open "My recipes"',
      'It lists the new title and not the old one',
    ],
    dependsOn: ['recipe-page'],
    sourceDir: '10-edit-recipe',
    insertions: [
      route('/recipes/:id/edit', 'edit-recipe'),
      recipeAction('(recipe, mine) => mine && html`<a href="/recipes/${recipe.id}/edit">Edit recipe</a>`,'),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `[ "$(get "/recipes/$recipe/edit")" = 200 ] && shows 'Save changes' || fail "GET /recipes/$recipe/edit shows no form"`,
      `[ "$(post "/recipes/$recipe/edit" title=Renamed servings=2 minutes=15 ingredients=salt)" = 303 ] || fail "saving the edit failed"`,
      `get "/recipes/$recipe" >/dev/null; shows 'Renamed' && shows 'Ready in 15 minutes' || fail "the recipe page does not show the change"`,
      'sign_up Other',
      `[ "$(get "/recipes/$recipe/edit")" = 404 ] || fail "another user can edit the recipe"`,
    ].join('\n'),
    summary: 'edit recipes (Edit recipe link, form filled in, Save changes)',
    check: [
      { do: [{ signUp: 'cook' }, ...addRecipe('Pea soup {tag}', ['500 g peas'], { minutes: '30' })] },
      {
        do: [
          { click: { role: 'link', name: 'Pea soup {tag}' } },
          { click: { role: 'link', name: 'Edit recipe' } },
        ],
      },
      { expect: [{ element: { role: 'heading', name: 'Edit recipe' } }, { see: 'Pea soup {tag}' }] },
      {
        do: [
          { fill: { role: 'textbox', name: 'Title' }, text: 'Minted pea soup {tag}' },
          { fill: { role: 'spinbutton', name: 'Time in minutes' }, text: '15' },
          { click: { role: 'button', name: 'Save changes' } },
        ],
      },
      {
        expect: [
          { element: { role: 'heading', name: 'Minted pea soup {tag}' } },
          { see: 'Ready in 15 minutes' },
          { see: 'Changes saved: Minted pea soup {tag}.' },
        ],
      },
      { do: [{ goto: '/recipes' }] },
      { expect: [{ list: 'Recipes', has: ['Minted pea soup {tag}'], lacks: ['Pea soup {tag}'] }] },
    ],
    regression: {
      path: 'app/features/edit-recipe.js',
      find: '[...columns.map((column) => fields[column]), new Date().toISOString()',
      replace: '[...columns.map((column) => recipe[column]), new Date().toISOString()',
      breaks: '"Save changes" says saved but keeps the old title and time',
    },
  },
  {
    key: 'delete-recipe',
    area: 'recipes',
    category: 'functional',
    description:
      'Delete a recipe: the "Delete recipe" button on a recipe page asks "Delete <title>? This cannot be undone." and, when confirmed, removes the recipe',
    steps: [
      'Sign up as a new user and add two recipes with unique titles',
      'Open the first recipe, click "Delete recipe" and cancel the question',
      'The recipe page is still there',
      'Click "Delete recipe" again and confirm',
      '"My recipes" opens with "Recipe deleted: <title>." and lists only the other recipe',
    ],
    dependsOn: ['recipe-page'],
    sourceDir: '11-delete-recipe',
    insertions: [
      route('/recipes/:id/delete', 'delete-recipe'),
      recipeAction(
        "(recipe, mine) => mine && actionButton(`/recipes/${recipe.id}/delete`, 'Delete recipe', `Delete ${recipe.title}? This cannot be undone.`),",
      ),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `get "/recipes/$recipe" >/dev/null; shows 'data-confirm=' || fail "the Delete recipe button does not ask first"`,
      `[ "$(post "/recipes/$recipe/delete")" = 303 ] || fail "POST /recipes/$recipe/delete did not redirect"`,
      `[ "$(get "/recipes/$recipe")" = 404 ] || fail "the recipe is still there after deleting it"`,
    ].join('\n'),
    summary: 'delete recipes (button with a confirmation)',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Old stew {tag}', ['1 kg beef']),
          ...addRecipe('Fresh salad {tag}', ['1 lettuce']),
        ],
      },
      {
        do: [
          { click: { role: 'link', name: 'Old stew {tag}' } },
          { dialog: 'dismiss' },
          { click: { role: 'button', name: 'Delete recipe' } },
        ],
        expect: [{ dialogSaid: 'Delete Old stew {tag}? This cannot be undone.' }],
      },
      { expect: [{ element: { role: 'heading', name: 'Old stew {tag}' } }] },
      {
        do: [{ click: { role: 'button', name: 'Delete recipe' } }],
        expect: [{ dialogSaid: 'Delete Old stew {tag}?' }],
      },
      {
        expect: [
          { path: '/recipes' },
          { see: 'Recipe deleted: Old stew {tag}.' },
          { list: 'Recipes', has: ['Fresh salad {tag}'], lacks: ['Old stew {tag}'] },
          { count: 'Recipes', is: { equals: 1 } },
        ],
      },
    ],
    regression: {
      path: 'app/features/delete-recipe.js',
      find: "    ctx.db.run('DELETE FROM recipes WHERE id = ? AND user_id = ?', [recipe.id, ctx.user.id]);\n",
      replace: '',
      breaks: '"Delete recipe" says deleted but the recipe stays',
    },
  },
  {
    key: 'duplicate-recipe',
    area: 'recipes',
    category: 'functional',
    description:
      'Duplicate a recipe: the "Duplicate" button on a recipe page makes a copy titled "Copy of <title>" and opens it',
    steps: [
      'Sign up as a new user and add a recipe with a unique title and two ingredients',
      'Open it and click "Duplicate"',
      'A recipe page titled "Copy of <title>" opens with the same two ingredients and says "Made a copy: Copy of <title>."',
      'Open "My recipes"',
      'Both the recipe and its copy are listed',
    ],
    dependsOn: ['recipe-page'],
    sourceDir: '12-duplicate-recipe',
    insertions: [
      route('/recipes/:id/duplicate', 'duplicate-recipe'),
      recipeAction("(recipe, mine) => mine && actionButton(`/recipes/${recipe.id}/duplicate`, 'Duplicate'),"),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `[ "$(post "/recipes/$recipe/duplicate")" = 303 ] || fail "POST /recipes/$recipe/duplicate did not redirect"`,
      `get /recipes >/dev/null; shows 'Copy of Verify soup' || fail "My recipes does not list the copy"`,
    ].join('\n'),
    summary: 'duplicate recipes ("Copy of …")',
    check: [
      { do: [{ signUp: 'cook' }, ...addRecipe('Banana bread {tag}', ['3 bananas', '250 g flour'])] },
      {
        do: [
          { click: { role: 'link', name: 'Banana bread {tag}' } },
          { click: { role: 'button', name: 'Duplicate' } },
        ],
      },
      {
        expect: [
          { element: { role: 'heading', name: 'Copy of Banana bread {tag}' } },
          { list: 'Ingredients', has: ['3 bananas', '250 g flour'] },
          { see: 'Made a copy: Copy of Banana bread {tag}.' },
        ],
      },
      { do: [{ goto: '/recipes' }] },
      {
        expect: [
          { list: 'Recipes', has: ['Copy of Banana bread {tag}', 'Banana bread {tag}'] },
          { count: 'Recipes', is: { equals: 2 } },
        ],
      },
    ],
    regression: {
      path: 'app/features/duplicate-recipe.js',
      find: 'const copy = { ...recipe, title: `Copy of ${recipe.title}` };',
      replace: 'const copy = { ...recipe, title: recipe.title };',
      breaks: 'the copy keeps the original title, so the two cannot be told apart',
    },
  },
];
