/** The week's meal plan and the shopping list (by hand, from a recipe, from the week's plan). */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';
import type { CheckAction } from './check-format.js';
import { addRecipe, NEW_RECIPE_SHELL, recipeAction } from './features-recipes.js';

const IMPORTS = '// -- imports: add above this line --';
const PLAN_PAGE = 'app/features/meal-plan.js';
const SHOPPING_PAGE = 'app/features/shopping-list.js';

function planTool(line: string) {
  return insertAbove(PLAN_PAGE, '// -- plan tools: add above this line --', line);
}

function shoppingTool(line: string) {
  return insertAbove(SHOPPING_PAGE, '// -- shopping tools: add above this line --', line);
}

/** On a recipe page: plan it for today. */
function planToday(meal: string, servings: string): CheckAction[] {
  return [
    { select: { role: 'combobox', name: 'Day' }, option: 'Today' },
    { select: { role: 'combobox', name: 'Meal' }, option: meal },
    { fill: { role: 'spinbutton', name: 'Servings' }, text: servings },
    { click: { role: 'button', name: 'Add to plan' } },
  ];
}

/** On the meal plan: a note for today. */
function noteToday(meal: string, note: string): CheckAction[] {
  return [
    { goto: '/plan' },
    { select: { role: 'combobox', name: 'Day' }, option: 'Today' },
    { select: { role: 'combobox', name: 'Meal' }, option: meal },
    { fill: { role: 'textbox', name: 'Note' }, text: note },
    { click: { role: 'button', name: 'Add note' } },
  ];
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

/** Shell: today's date as the app keeps days. */
const TODAY = 'today=$(date +%F)';

export const PLAN_FEATURES: MealPlannerFeatureInput[] = [
  {
    key: 'meal-plan',
    area: 'meal plan',
    category: 'functional',
    description:
      '"Meal plan" shows the current week from Monday, day by day, today marked "(today)", with what is planned for each day or "Nothing planned."',
    steps: [
      'Sign up as a new user and click "Meal plan" in the menu',
      'The page has the heading "Meal plan", says "Week of Monday …", shows today marked "(today)" and "Nothing planned." for the days',
    ],
    dependsOn: ['recipe-page'],
    sourceDir: '30-meal-plan',
    insertions: [
      migrations([
        'plan-entries',
        'CREATE TABLE plan_entries (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, day TEXT NOT NULL, meal TEXT NOT NULL, recipe_id INTEGER, servings INTEGER, note TEXT)',
      ]),
      route('/plan', 'meal-plan'),
      nav('/plan', 'Meal plan', 'user'),
      insertAbove(
        'app/features/delete-recipe.js',
        '// -- recipe cleanup: add above this line --',
        "(db, id) => db.run('DELETE FROM plan_entries WHERE recipe_id = ?', [id]),",
      ),
    ],
    verify: [
      'sign_up',
      `[ "$(get /plan)" = 200 ] && shows 'Meal plan' && shows 'Nothing planned.' || fail "GET /plan does not show an empty week"`,
      `[ "$(grep -o '<section>' "$work/last" | wc -l)" = 7 ] || fail "the week does not have 7 days"`,
      `shows '(today)' || fail "today is not marked"`,
    ].join('\n'),
    summary: 'Meal plan page (the week, day by day; dayjs)',
    check: [
      { do: [{ signUp: 'cook' }, { click: { role: 'link', name: 'Meal plan' } }] },
      {
        expect: [
          { path: '/plan' },
          { element: { role: 'heading', name: 'Meal plan' } },
          { see: 'Week of Monday' },
          { see: '(today)' },
          { see: 'Nothing planned.' },
        ],
      },
    ],
    regression: {
      path: PLAN_PAGE,
      find: "${day === today ? ' (today)' : ''}",
      replace: '',
      breaks: 'the plan no longer marks today',
    },
  },
  {
    key: 'plan-recipe',
    area: 'meal plan',
    category: 'functional',
    description:
      '"Plan this recipe" on a recipe page puts the recipe on a day (Today, Tomorrow, …) for breakfast, lunch or dinner, for some servings; the plan then shows "<Meal>: <title> (<n> servings)" linking to the recipe',
    steps: [
      'Sign up as a new user, add a recipe for 2 servings with a unique title and open it',
      'In "Plan this recipe" choose "Today" and "Dinner", type 4 into "Servings" and click "Add to plan"',
      'The meal plan opens, says "Planned <title> for dinner on …" and shows "Dinner: <title> (4 servings)"',
      'Click that entry',
      'The recipe page opens',
    ],
    dependsOn: ['meal-plan', 'make-public'],
    sourceDir: '31-plan-recipe',
    insertions: [
      route('/recipes/:id/plan', 'plan-recipe'),
      insertAbove('app/features/recipe-page.js', IMPORTS, "import { planForm } from './plan-recipe.js';"),
      recipeAction('(recipe) => planForm(recipe),'),
    ],
    verify: [
      'sign_up',
      NEW_RECIPE_SHELL,
      TODAY,
      `[ "$(post "/recipes/$recipe/plan" "day=$today" meal=Dinner servings=4)" = 303 ] || fail "planning the recipe failed"`,
      `get /plan >/dev/null; shows 'Dinner: Verify soup' && shows '(4 servings)' || fail "the plan does not show the recipe"`,
      `post "/recipes/$recipe/plan" day=someday meal=Dinner servings=4 >/dev/null; get /plan >/dev/null; [ "$(grep -o '>Dinner: Verify soup' "$work/last" | wc -l)" = 1 ] || fail "a bad day was planned"`,
    ].join('\n'),
    summary: 'plan a recipe for a day and meal',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Lentil stew {tag}', ['200 g lentils'], { servings: '2' }),
          { click: { role: 'link', name: 'Lentil stew {tag}' } },
        ],
      },
      { do: planToday('Dinner', '4') },
      {
        expect: [
          { path: '/plan' },
          { see: 'Planned Lentil stew {tag} for dinner on' },
          { see: 'Dinner: Lentil stew {tag} (4 servings)' },
        ],
      },
      { do: [{ click: { role: 'link', name: 'Dinner: Lentil stew {tag} (4 servings)' } }] },
      { expect: [{ element: { role: 'heading', name: 'Lentil stew {tag}' } }] },
    ],
    regression: {
      path: 'app/features/plan-recipe.js',
      find: "const servings = Number(ctx.form.get('servings') || recipe.servings);",
      replace: 'const servings = Number(recipe.servings);',
      breaks: "the servings chosen are ignored: the plan shows the recipe's own servings",
    },
  },
  {
    key: 'plan-note',
    area: 'meal plan',
    category: 'functional',
    description:
      '"Add a note" on the meal plan plans a meal without a recipe (e.g. "Eating out"), shown as "<Meal>: <note>"',
    steps: [
      'Sign up as a new user and open "Meal plan"',
      'In "Add a note" choose "Today" and "Lunch", type a unique note and click "Add note"',
      'The page says "Added to the plan: <note>." and shows "Lunch: <note>"',
    ],
    dependsOn: ['meal-plan'],
    sourceDir: '33-plan-note',
    insertions: [
      route('/plan/notes', 'plan-note'),
      insertAbove(PLAN_PAGE, IMPORTS, "import { noteForm } from './plan-note.js';"),
      planTool('noteForm,'),
    ],
    verify: [
      'sign_up',
      TODAY,
      `[ "$(post /plan/notes "day=$today" meal=Lunch 'note=Verify picnic')" = 303 ] || fail "adding a note failed"`,
      `get /plan >/dev/null; shows 'Lunch: Verify picnic' || fail "the plan does not show the note"`,
      `post /plan/notes "day=$today" meal=Lunch note= >/dev/null; get /plan >/dev/null; [ "$(grep -c 'Lunch: ' "$work/last")" -ge 1 ] || fail "the plan lost the note"`,
    ].join('\n'),
    summary: 'notes on the meal plan (meals without a recipe)',
    check: [
      { do: [{ signUp: 'cook' }, { goto: '/plan' }] },
      { do: noteToday('Lunch', 'Eating out {tag}') },
      { expect: [{ see: 'Added to the plan: Eating out {tag}.' }, { see: 'Lunch: Eating out {tag}' }] },
    ],
    regression: {
      path: 'app/features/plan-note.js',
      find: '    !MEALS.includes(meal) ||\n',
      replace: "    meal !== 'Breakfast' ||\n",
      breaks: 'a note for lunch or dinner is refused',
    },
  },
  {
    key: 'plan-weeks',
    area: 'meal plan',
    category: 'functional',
    description:
      'Weeks on the meal plan: "Previous week", "This week" and "Next week" links move between weeks',
    steps: [
      "Sign up as a new user and add a note for today's lunch with a unique text",
      'Click "Next week"',
      'The note is not shown and every day says "Nothing planned."',
      'Click "This week"',
      'The note is shown again',
    ],
    dependsOn: ['plan-note'],
    sourceDir: '32-plan-weeks',
    insertions: [
      insertAbove(PLAN_PAGE, IMPORTS, "import { weekLinks } from './plan-weeks.js';"),
      planTool('weekLinks,'),
    ],
    verify: [
      'sign_up',
      `get /plan >/dev/null; next=$(grep -o 'href="/plan?week=[0-9-]*">Next week' "$work/last" | grep -o '[0-9]\\{4\\}-[0-9-]*')`,
      `[ -n "$next" ] || fail "no Next week link"`,
      `[ "$(date -d "$next" +%u)" = 1 ] || fail "next week does not start on a Monday ($next)"`,
      `get "/plan?week=$next" >/dev/null; shows '(today)' && fail "next week shows today"`,
      'true',
    ].join('\n'),
    summary: 'previous / this / next week on the meal plan',
    check: [
      { do: [{ signUp: 'cook' }, ...noteToday('Lunch', 'Picnic {tag}')] },
      { do: [{ click: { role: 'link', name: 'Next week' } }] },
      { expect: [{ notSee: 'Picnic {tag}' }, { notSee: '(today)' }, { see: 'Nothing planned.' }] },
      { do: [{ click: { role: 'link', name: 'This week' } }] },
      { expect: [{ see: 'Lunch: Picnic {tag}' }] },
    ],
    regression: {
      path: 'app/features/plan-weeks.js',
      find: "link(start.add(7, 'day'), 'Next week')",
      replace: "link(start.add(0, 'day'), 'Next week')",
      breaks: '"Next week" shows this week again',
    },
  },
  {
    key: 'plan-remove',
    area: 'meal plan',
    category: 'functional',
    description:
      'Remove a planned meal: each entry of the meal plan has a "Remove" button ("Remove <Meal>: <what>") that takes it off the plan',
    steps: [
      "Sign up as a new user and add notes for today's lunch and dinner with unique texts",
      'Click "Remove" beside the lunch',
      'The page says "Removed from the plan.", the lunch is gone and the dinner is still there',
    ],
    dependsOn: ['plan-note'],
    sourceDir: '34-plan-remove',
    insertions: [
      route('/plan/:id/remove', 'plan-remove'),
      insertAbove(PLAN_PAGE, IMPORTS, "import { removeButton } from './plan-remove.js';"),
      insertAbove(PLAN_PAGE, '// -- plan entry actions: add above this line --', 'removeButton,'),
    ],
    verify: [
      'sign_up',
      TODAY,
      `post /plan/notes "day=$today" meal=Lunch 'note=Verify leftovers' >/dev/null`,
      `get /plan >/dev/null; entry=$(grep -o 'action="/plan/[0-9]*/remove"' "$work/last" | grep -o '[0-9]*' | head -1)`,
      `[ -n "$entry" ] || fail "no Remove button"`,
      `[ "$(post "/plan/$entry/remove")" = 303 ] || fail "removing failed"`,
      `get /plan >/dev/null; shows 'Verify leftovers' && fail "the entry is still planned"`,
      'true',
    ].join('\n'),
    summary: 'remove a planned meal',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...noteToday('Lunch', 'Leftovers {tag}'),
          ...noteToday('Dinner', 'Take-away {tag}'),
        ],
      },
      { do: [{ click: { role: 'button', name: 'Remove Lunch: Leftovers {tag}' } }] },
      {
        expect: [
          { see: 'Removed from the plan.' },
          { notSee: 'Lunch: Leftovers {tag}' },
          { see: 'Dinner: Take-away {tag}' },
        ],
      },
    ],
    regression: {
      path: 'app/features/plan-remove.js',
      find: "ctx.db.run('DELETE FROM plan_entries WHERE id = ?', [entry.id]);",
      replace: "ctx.db.run('DELETE FROM plan_entries WHERE id = -?', [entry.id]);",
      breaks: '"Remove" says removed but the meal stays on the plan',
    },
  },
  {
    key: 'plan-clear',
    area: 'meal plan',
    category: 'functional',
    description:
      '"Clear this week" on the meal plan asks "Remove every meal planned for this week?" and removes them all',
    steps: [
      "Sign up as a new user and add notes for today's breakfast and dinner with unique texts",
      'Click "Clear this week" and confirm',
      'The page says "Cleared the week of …" and neither note is shown',
    ],
    dependsOn: ['plan-note'],
    sourceDir: '35-plan-clear',
    insertions: [
      route('/plan/clear', 'plan-clear'),
      insertAbove(PLAN_PAGE, IMPORTS, "import { clearButton } from './plan-clear.js';"),
      planTool('clearButton,'),
    ],
    verify: [
      'sign_up',
      TODAY,
      `post /plan/notes "day=$today" meal=Lunch 'note=Verify snack' >/dev/null`,
      `[ "$(post /plan/clear "week=$today")" = 303 ] || fail "clearing the week failed"`,
      `get /plan >/dev/null; shows 'Verify snack' && fail "the week still has the note"`,
      'true',
    ].join('\n'),
    summary: 'clear the week on the meal plan',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...noteToday('Breakfast', 'Croissants {tag}'),
          ...noteToday('Dinner', 'Pizza night {tag}'),
        ],
      },
      {
        do: [{ click: { role: 'button', name: 'Clear this week' } }],
        expect: [{ dialogSaid: 'Remove every meal planned for this week?' }],
      },
      {
        expect: [
          { see: 'Cleared the week of' },
          { notSee: 'Croissants {tag}' },
          { notSee: 'Pizza night {tag}' },
        ],
      },
    ],
    regression: {
      path: 'app/features/plan-clear.js',
      find: "'DELETE FROM plan_entries WHERE user_id = ? AND day >= ? AND day <= ?'",
      replace: "'DELETE FROM plan_entries WHERE user_id = -? AND day >= ? AND day <= ?'",
      breaks: '"Clear this week" says cleared but every meal stays',
    },
  },
];

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
