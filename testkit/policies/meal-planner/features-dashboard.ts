/** The dashboard: the recipe count, today's meals, recently added recipes, what is left to buy; / leads there. */
import { insertAbove, type MealPlannerFeatureInput, nav, route } from './catalogue.js';
import { importRecipes } from './features-finding.js';
import { addRecipe } from './features-recipes.js';

const IMPORTS = '// -- imports: add above this line --';
const DASHBOARD_PAGE = 'app/features/dashboard.js';

function widget(importLine: string, entry: string) {
  return [
    insertAbove(DASHBOARD_PAGE, IMPORTS, importLine),
    insertAbove(DASHBOARD_PAGE, '// -- dashboard widgets: add above this line --', entry),
  ];
}

export const DASHBOARD_FEATURES: MealPlannerFeatureInput[] = [
  {
    key: 'dashboard',
    area: 'dashboard',
    category: 'functional',
    description:
      '"Dashboard" in the menu greets the user ("Hello, <name>.") and says how many recipes they have',
    steps: [
      'Sign up as a new user and add two recipes',
      'Click "Dashboard" in the menu',
      'The page says "Hello, <name>." and "2 recipes in your collection."',
    ],
    dependsOn: ['new-recipe'],
    sourceDir: '46-dashboard',
    insertions: [route('/dashboard', 'dashboard'), nav('/dashboard', 'Dashboard', 'user')],
    verify: [
      'sign_up',
      `post /recipes/new title='Verify one' ingredients=salt >/dev/null`,
      `[ "$(get /dashboard)" = 200 ] && shows '1 recipe in your collection.' || fail "the dashboard does not count the recipe"`,
    ].join('\n'),
    summary: 'dashboard with the recipe count',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Soda bread {tag}', ['flour']),
          ...addRecipe('Nettle soup {tag}', ['nettles']),
        ],
      },
      { do: [{ click: { role: 'link', name: 'Dashboard' } }] },
      { expect: [{ see: 'Hello, {name:cook}.' }, { see: '2 recipes in your collection.' }] },
    ],
    regression: {
      path: DASHBOARD_PAGE,
      find: "'SELECT COUNT(*) AS total FROM recipes WHERE user_id = ?'",
      replace: "'SELECT COUNT(*) - 1 AS total FROM recipes WHERE user_id = ?'",
      breaks: 'the dashboard counts one recipe too few',
    },
  },
  {
    key: 'dashboard-today',
    area: 'dashboard',
    category: 'functional',
    description:
      'The dashboard\'s "Today" part lists the meals planned for today, or says "Nothing planned for today."',
    steps: [
      'Sign up as a new user and open "Dashboard"',
      'It says "Nothing planned for today."',
      'Add a note for today\'s dinner on the meal plan and open "Dashboard" again',
      'It lists "Dinner: <note>" under "Today\'s meals"',
    ],
    dependsOn: ['dashboard', 'plan-note'],
    sourceDir: '47-dashboard-today',
    insertions: widget("import { todayWidget } from './dashboard-today.js';", 'todayWidget,'),
    verify: [
      'sign_up',
      `get /dashboard >/dev/null; shows 'Nothing planned for today.' || fail "the dashboard does not say nothing is planned"`,
      `post /plan/notes "day=$(date +%F)" meal=Dinner 'note=Verify feast' >/dev/null`,
      `get /dashboard >/dev/null; shows 'Dinner: Verify feast' || fail "today's meal is not on the dashboard"`,
    ].join('\n'),
    summary: "dashboard: today's meals",
    check: [
      { do: [{ signUp: 'cook' }, { goto: '/dashboard' }] },
      { expect: [{ see: 'Nothing planned for today.' }] },
      {
        do: [
          { goto: '/plan' },
          { select: { role: 'combobox', name: 'Day' }, option: 'Today' },
          { select: { role: 'combobox', name: 'Meal' }, option: 'Dinner' },
          { fill: { role: 'textbox', name: 'Note' }, text: 'Barbecue {tag}' },
          { click: { role: 'button', name: 'Add note' } },
          { goto: '/dashboard' },
        ],
      },
      { expect: [{ list: "Today's meals", has: ['Dinner: Barbecue {tag}'] }] },
    ],
    regression: {
      path: 'app/features/dashboard-today.js',
      find: '[ctx.user.id, dayjs().format(DAY_FORMAT)]',
      replace: "[ctx.user.id, dayjs().add(1, 'day').format(DAY_FORMAT)]",
      breaks: "the dashboard shows tomorrow's meals as today's",
    },
  },
  {
    key: 'dashboard-recent',
    area: 'dashboard',
    category: 'functional',
    description:
      'The dashboard\'s "Recently added" part lists the three recipes added last, newest first, each linking to its page',
    steps: [
      'Sign up as a new user and import four recipes with unique titles',
      'Open "Dashboard"',
      'Under "Recently added" the last three imported are listed, newest first, and the first one is not',
      'Click the newest',
      'Its recipe page opens',
    ],
    dependsOn: ['dashboard', 'import-recipes', 'recipe-page'],
    sourceDir: '48-dashboard-recent',
    insertions: widget("import { recentWidget } from './dashboard-recent.js';", 'recentWidget,'),
    verify: [
      'sign_up',
      `post /recipes/new title='Verify recent' ingredients=salt >/dev/null`,
      `get /dashboard >/dev/null; shows 'Recently added' && shows 'Verify recent' || fail "the dashboard does not list the recent recipe"`,
    ].join('\n'),
    summary: 'dashboard: recently added recipes',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...importRecipes([
            'First {tag} | 10 | a',
            'Second {tag} | 10 | b',
            'Third {tag} | 10 | c',
            'Fourth {tag} | 10 | d',
          ]),
        ],
      },
      { do: [{ goto: '/dashboard' }] },
      {
        expect: [
          { order: ['Fourth {tag}', 'Third {tag}', 'Second {tag}'], in: 'Recently added' },
          { list: 'Recently added', lacks: ['First {tag}'] },
        ],
      },
      { do: [{ click: { role: 'link', name: 'Fourth {tag}' } }] },
      { expect: [{ element: { role: 'heading', name: 'Fourth {tag}' } }] },
    ],
    regression: {
      path: 'app/features/dashboard-recent.js',
      find: 'ORDER BY created_at DESC, id DESC LIMIT 3',
      replace: 'ORDER BY created_at ASC, id ASC LIMIT 3',
      breaks: '"Recently added" lists the oldest recipes',
    },
  },
  {
    key: 'dashboard-shopping',
    area: 'dashboard',
    category: 'functional',
    description:
      'The dashboard\'s "Shopping" part says how many shopping list items are left to buy ("Nothing to buy." when none)',
    steps: [
      'Sign up as a new user and add two items to the shopping list; mark one bought',
      'Open "Dashboard"',
      'It says "1 item to buy."',
    ],
    dependsOn: ['dashboard', 'shopping-bought'],
    sourceDir: '49-dashboard-shopping',
    insertions: widget("import { shoppingWidget } from './dashboard-shopping.js';", 'shoppingWidget,'),
    verify: [
      'sign_up',
      `get /dashboard >/dev/null; shows 'Nothing to buy.' || fail "the dashboard does not say nothing is left to buy"`,
      `post /shopping 'text=Verify bread' >/dev/null; get /dashboard >/dev/null; shows '1 item to buy.' || fail "the dashboard does not count the item"`,
    ].join('\n'),
    summary: 'dashboard: items left to buy',
    check: [
      {
        do: [
          { signUp: 'cook' },
          { goto: '/shopping' },
          { fill: { role: 'textbox', name: 'Item' }, text: 'Butter {tag}' },
          { click: { role: 'button', name: 'Add item' } },
          { fill: { role: 'textbox', name: 'Item' }, text: 'Cheese {tag}' },
          { click: { role: 'button', name: 'Add item' } },
          { click: { role: 'button', name: 'Mark Butter {tag} as bought' } },
        ],
      },
      { do: [{ goto: '/dashboard' }] },
      { expect: [{ see: '1 item to buy.' }] },
    ],
    regression: {
      path: 'app/features/dashboard-shopping.js',
      find: 'WHERE user_id = ? AND bought = 0',
      replace: 'WHERE user_id = ? AND bought >= 0',
      breaks: 'the dashboard counts bought items as still to buy',
    },
  },
  {
    key: 'home-dashboard',
    area: 'dashboard',
    category: 'functional',
    description:
      'Signed-in users who open the app (/) land on their dashboard; the message of their last action comes along',
    steps: [
      'Sign up as a new user',
      'The dashboard opens with "Welcome, <name>! Your account is ready."',
      'Click "Home" in the menu',
      'The dashboard opens again',
    ],
    dependsOn: ['dashboard'],
    sourceDir: '50-home-dashboard',
    insertions: [route('/', 'home-dashboard')],
    verify: [
      'sign_up',
      `[ "$(get /)" = 303 ] || fail "GET / does not redirect a signed-in user"`,
      `curl -s -o /dev/null -w '%{redirect_url}' -b "$jar" "$base/" | grep -q '/dashboard$' || fail "GET / does not go to /dashboard"`,
    ].join('\n'),
    summary: 'signed-in users land on the dashboard',
    check: [
      { do: [{ signUp: 'cook' }] },
      { expect: [{ path: '/dashboard' }, { see: 'Welcome, {name:cook}! Your account is ready.' }] },
      { do: [{ click: { role: 'link', name: 'Home' } }] },
      { expect: [{ path: '/dashboard' }, { element: { role: 'heading', name: 'Dashboard' } }] },
    ],
    regression: {
      path: 'app/features/home-dashboard.js',
      find: "if (ctx.user && ctx.method === 'GET') ctx.redirect('/dashboard');",
      replace: "if (ctx.user && ctx.method === 'HEAD') ctx.redirect('/dashboard');",
      breaks: 'signed-in users land on the plain home page instead of their dashboard',
    },
  },
];
