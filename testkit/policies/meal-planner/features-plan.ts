/** The week's meal plan: recipes and notes on days and meals, weeks, removing and clearing. */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';
import type { CheckAction } from './check-format.js';
import { addRecipe, NEW_RECIPE_SHELL, recipeAction } from './features-recipes.js';

export const IMPORTS = '// -- imports: add above this line --';
export const PLAN_PAGE = 'app/features/meal-plan.js';

export function planTool(line: string) {
  return insertAbove(PLAN_PAGE, '// -- plan tools: add above this line --', line);
}

/** On a recipe page: plan it for today. */
export function planToday(meal: string, servings: string): CheckAction[] {
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

/** Shell: today's date as the app keeps days. */
export const TODAY = 'today=$(date +%F)';

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
