/** The shopping list: by hand, bought items, from a recipe, from the week's plan (scaled and added up). */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';
import type { CheckAction } from './check-format.js';
import { IMPORTS, PLAN_PAGE, planToday, planTool, TODAY } from './features-plan.js';
import { addRecipe, NEW_RECIPE_SHELL, recipeAction } from './features-recipes.js';

const SHOPPING_PAGE = 'app/features/shopping-list.js';

function shoppingTool(line: string) {
  return insertAbove(SHOPPING_PAGE, '// -- shopping tools: add above this line --', line);
}

function addItems(...items: string[]): CheckAction[] {
  return [
    { goto: '/shopping' },
    ...items.flatMap((item): CheckAction[] => [
      { fill: { role: 'textbox', name: 'Item' }, text: item },
      { click: { role: 'button', name: 'Add item' } },
    ]),
  ];
}

export const SHOPPING_FEATURES: MealPlannerFeatureInput[] = [
  {
    key: 'shopping-list',
    area: 'shopping',
    category: 'functional',
    description:
      '"Shopping list" in the menu: type into "Item" and click "Add item" (or press Enter) to add to the list, in the order added',
    steps: [
      'Sign up as a new user and click "Shopping list" in the menu',
      'The page says "Your shopping list is empty."',
      'Type a unique item into "Item" and click "Add item"',
      'The page says "Added <item>." and the list shows it',
      'Type a second unique item and press Enter',
      'The list shows both items, the first one first',
    ],
    dependsOn: ['sign-up'],
    sourceDir: '36-shopping-list',
    insertions: [
      migrations([
        'shopping-items',
        'CREATE TABLE shopping_items (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, text TEXT NOT NULL, bought INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL)',
      ]),
      route('/shopping', 'shopping-list'),
      nav('/shopping', 'Shopping list', 'user'),
    ],
    verify: [
      'sign_up',
      `[ "$(get /shopping)" = 200 ] && shows 'Your shopping list is empty' || fail "GET /shopping does not show an empty list"`,
      `[ "$(post /shopping 'text=Verify <milk>')" = 303 ] || fail "adding an item failed"`,
      `get /shopping >/dev/null; shows 'Verify &lt;milk&gt;' || fail "the item is not listed (escaped)"`,
    ].join('\n'),
    summary: 'shopping list (add items)',
    check: [
      { do: [{ signUp: 'cook' }, { click: { role: 'link', name: 'Shopping list' } }] },
      { expect: [{ see: 'Your shopping list is empty.' }] },
      {
        do: [
          { fill: { role: 'textbox', name: 'Item' }, text: 'Oat milk {tag}' },
          { click: { role: 'button', name: 'Add item' } },
        ],
      },
      { expect: [{ see: 'Added Oat milk {tag}.' }, { list: 'Shopping list', has: ['Oat milk {tag}'] }] },
      { do: [{ fill: { role: 'textbox', name: 'Item' }, text: 'Coffee beans {tag}', submit: true }] },
      { expect: [{ order: ['Oat milk {tag}', 'Coffee beans {tag}'], in: 'Shopping list' }] },
    ],
    regression: {
      path: SHOPPING_PAGE,
      find: 'ORDER BY bought, id',
      replace: 'ORDER BY bought, id DESC',
      breaks: 'the newest item comes first instead of last',
    },
  },
  {
    key: 'shopping-bought',
    area: 'shopping',
    category: 'functional',
    description:
      'Bought items: "Bought" beside an item ("Mark <item> as bought") strikes it through, adds "(bought)" and moves it to the end; "Not bought" undoes it',
    steps: [
      'Sign up as a new user and add two unique items to the shopping list',
      'Click "Bought" beside the first item',
      'The first item shows "(bought)" and is listed after the second',
      'Click "Not bought" beside it',
      'It no longer shows "(bought)"',
    ],
    dependsOn: ['shopping-list'],
    sourceDir: '37-shopping-bought',
    insertions: [
      route('/shopping/:id/bought', 'shopping-bought'),
      insertAbove(SHOPPING_PAGE, IMPORTS, "import { boughtButton } from './shopping-bought.js';"),
      insertAbove(SHOPPING_PAGE, '// -- shopping item actions: add above this line --', 'boughtButton,'),
    ],
    verify: [
      'sign_up',
      `post /shopping 'text=Verify eggs' >/dev/null; get /shopping >/dev/null`,
      `item=$(grep -o 'action="/shopping/[0-9]*/bought"' "$work/last" | grep -o '[0-9]*' | head -1)`,
      `[ "$(post "/shopping/$item/bought")" = 303 ] || fail "marking as bought failed"`,
      `get /shopping >/dev/null; shows '(bought)' || fail "the item is not marked bought"`,
    ].join('\n'),
    summary: 'mark shopping items bought',
    check: [
      { do: [{ signUp: 'cook' }, ...addItems('Eggs {tag}', 'Flour {tag}')] },
      { do: [{ click: { role: 'button', name: 'Mark Eggs {tag} as bought' } }] },
      {
        expect: [
          { list: 'Shopping list', has: ['Eggs {tag} (bought)'] },
          { order: ['Flour {tag}', 'Eggs {tag}'], in: 'Shopping list' },
        ],
      },
      { do: [{ click: { role: 'button', name: 'Mark Eggs {tag} as not bought' } }] },
      {
        expect: [
          { list: 'Shopping list', has: ['Eggs {tag}'], lacks: ['Eggs {tag} (bought)'] },
          { element: { role: 'button', name: 'Mark Eggs {tag} as bought' } },
        ],
      },
    ],
    regression: {
      path: 'app/features/shopping-bought.js',
      find: '[item.bought ? 0 : 1, item.id]',
      replace: '[1, item.id]',
      breaks: 'a bought item cannot be marked not bought again',
    },
  },
  {
    key: 'remove-bought',
    area: 'shopping',
    category: 'functional',
    description:
      'The shopping list says "N items to buy." (or "Nothing left to buy."), and "Remove bought items" asks first, then removes every bought item',
    steps: [
      'Sign up as a new user, add three unique items and mark two of them bought',
      'The page says "1 item to buy."',
      'Click "Remove bought items" and confirm',
      'The page says "Removed 2 bought items." and only the item not bought is listed',
    ],
    dependsOn: ['shopping-bought'],
    sourceDir: '38-remove-bought',
    insertions: [
      route('/shopping/remove-bought', 'remove-bought'),
      insertAbove(SHOPPING_PAGE, IMPORTS, "import { boughtTools } from './remove-bought.js';"),
      shoppingTool('boughtTools,'),
    ],
    verify: [
      'sign_up',
      `post /shopping 'text=Verify jam' >/dev/null; get /shopping >/dev/null`,
      `item=$(grep -o 'action="/shopping/[0-9]*/bought"' "$work/last" | grep -o '[0-9]*' | head -1)`,
      `post "/shopping/$item/bought" >/dev/null; get /shopping >/dev/null; shows 'Nothing left to buy.' || fail "the status line is wrong"`,
      `[ "$(post /shopping/remove-bought)" = 303 ] || fail "removing bought items failed"`,
      `get /shopping >/dev/null; shows 'Verify jam' && fail "the bought item is still listed"`,
      'true',
    ].join('\n'),
    summary: 'items-to-buy count and remove bought items',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addItems('Apples {tag}', 'Pears {tag}', 'Plums {tag}'),
          { click: { role: 'button', name: 'Mark Apples {tag} as bought' } },
          { click: { role: 'button', name: 'Mark Pears {tag} as bought' } },
        ],
      },
      { expect: [{ see: '1 item to buy.' }] },
      {
        do: [{ click: { role: 'button', name: 'Remove bought items' } }],
        expect: [{ dialogSaid: 'Remove every bought item from the list?' }],
      },
      {
        expect: [
          { see: 'Removed 2 bought items.' },
          { list: 'Shopping list', has: ['Plums {tag}'], lacks: ['Apples {tag}', 'Pears {tag}'] },
        ],
      },
    ],
    regression: {
      path: 'app/features/remove-bought.js',
      find: 'const left = items.filter((item) => !item.bought).length;',
      replace: 'const left = items.length;',
      breaks: 'the items-to-buy count includes bought items',
    },
  },
  {
    key: 'shopping-from-recipe',
    area: 'shopping',
    category: 'functional',
    description:
      '"Add ingredients to shopping list" on a recipe page adds each ingredient line to the shopping list',
    steps: [
      'Sign up as a new user, add a recipe with three ingredients and a unique title, and open it',
      'Click "Add ingredients to shopping list"',
      'The shopping list opens, says "Added 3 items from <title>." and lists the three ingredients',
    ],
    dependsOn: ['shopping-list', 'recipe-page', 'make-public'],
    sourceDir: '39-shopping-from-recipe',
    insertions: [
      route('/recipes/:id/shopping', 'recipe-to-shopping'),
      recipeAction(
        "(recipe) => actionButton(`/recipes/${recipe.id}/shopping`, 'Add ingredients to shopping list'),",
      ),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      `[ "$(post "/recipes/$recipe/shopping")" = 303 ] || fail "adding the ingredients failed"`,
      `get /shopping >/dev/null; shows '200 g lentils' && shows '1 onion' || fail "the ingredients are not on the shopping list"`,
    ].join('\n'),
    summary: "add a recipe's ingredients to the shopping list",
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Guacamole {tag}', ['3 avocados', '1 lime', '1 red onion']),
          { click: { role: 'link', name: 'Guacamole {tag}' } },
        ],
      },
      { do: [{ click: { role: 'button', name: 'Add ingredients to shopping list' } }] },
      {
        expect: [
          { path: '/shopping' },
          { see: 'Added 3 items from Guacamole {tag}.' },
          { list: 'Shopping list', has: ['3 avocados', '1 lime', '1 red onion'] },
        ],
      },
    ],
    regression: {
      path: 'app/features/recipe-to-shopping.js',
      find: 'addShoppingItems(ctx.db, ctx.user.id, ingredientLines(recipe))',
      replace: 'addShoppingItems(ctx.db, ctx.user.id, ingredientLines(recipe).slice(1))',
      breaks: 'the first ingredient of a recipe never reaches the shopping list',
    },
  },
  {
    key: 'shopping-from-plan',
    area: 'shopping',
    category: 'functional',
    description:
      '"Add this week\'s ingredients to the shopping list" on the meal plan adds the ingredients of the week\'s planned recipes, scaled to the servings planned, with the same ingredient added up',
    steps: [
      'Sign up as a new user, add a recipe for 2 servings with "200 g lentils", "1 onion" and "salt", and plan it for today\'s lunch (2 servings) and today\'s dinner (4 servings)',
      'On the meal plan click "Add this week\'s ingredients to the shopping list"',
      'The shopping list opens and lists "600 g lentils", "3 onion" and "salt", three items in all',
    ],
    dependsOn: ['plan-recipe', 'shopping-list', 'scale-recipe'],
    sourceDir: '40-shopping-from-plan',
    insertions: [
      route('/plan/shopping', 'plan-to-shopping'),
      insertAbove(PLAN_PAGE, IMPORTS, "import { weekToShoppingButton } from './plan-to-shopping.js';"),
      planTool('weekToShoppingButton,'),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      TODAY,
      `post "/recipes/$recipe/plan" "day=$today" meal=Lunch servings=2 >/dev/null`,
      `post "/recipes/$recipe/plan" "day=$today" meal=Dinner servings=4 >/dev/null`,
      `[ "$(post /plan/shopping "week=$today")" = 303 ] || fail "adding the week's ingredients failed"`,
      `get /shopping >/dev/null; shows '600 g lentils' && shows '3 onion' || fail "the week's ingredients are not added up and scaled"`,
    ].join('\n'),
    summary: "add the week's ingredients to the shopping list (scaled, added up)",
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Dal tadka {tag}', ['200 g lentils', '1 onion', 'salt'], { servings: '2' }),
          { click: { role: 'link', name: 'Dal tadka {tag}' } },
          { rememberPath: 'recipe' },
          ...planToday('Lunch', '2'),
          { goto: '{path:recipe}' },
          ...planToday('Dinner', '4'),
        ],
      },
      {
        do: [
          { goto: '/plan' },
          { click: { role: 'button', name: "Add this week's ingredients to the shopping list" } },
        ],
      },
      {
        expect: [
          { path: '/shopping' },
          { list: 'Shopping list', has: ['600 g lentils', '3 onion', 'salt'] },
          { count: 'Shopping list', is: { equals: 3 } },
        ],
      },
    ],
    regression: {
      path: 'app/features/plan-to-shopping.js',
      find: 'if (match && entry.amount !== undefined) entry.amount += Number(match[1]);',
      replace: 'if (match && entry.amount !== undefined) entry.amount = Number(match[1]);',
      breaks: 'the same ingredient planned twice is not added up',
    },
  },
];
