/** Settings (name, password, page size, week start, deleting the account) and the dashboard. */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';
import type { CheckAction } from './check-format.js';
import { importRecipes } from './features-finding.js';
import { addRecipe } from './features-recipes.js';

const IMPORTS = '// -- imports: add above this line --';
const SETTINGS_PAGE = 'app/features/settings.js';
const DASHBOARD_PAGE = 'app/features/dashboard.js';

function settingsSection(importLine: string, entry: string) {
  return [
    insertAbove(SETTINGS_PAGE, IMPORTS, importLine),
    insertAbove(SETTINGS_PAGE, '// -- settings sections: add above this line --', entry),
  ];
}

function widget(importLine: string, entry: string) {
  return [
    insertAbove(DASHBOARD_PAGE, IMPORTS, importLine),
    insertAbove(DASHBOARD_PAGE, '// -- dashboard widgets: add above this line --', entry),
  ];
}

function changePassword(current: string, next: string, repeat = next): CheckAction[] {
  return [
    { goto: '/settings' },
    { fill: { role: 'textbox', name: 'Current password' }, text: current },
    { fill: { role: 'textbox', name: 'New password' }, text: next },
    { fill: { role: 'textbox', name: 'Repeat the new password' }, text: repeat },
    { click: { role: 'button', name: 'Change password' } },
  ];
}

const SAVE_SETTING = (button: string): CheckAction => ({ click: { role: 'button', name: button } });

export const SETTINGS_FEATURES: MealPlannerFeatureInput[] = [
  {
    key: 'settings',
    area: 'settings',
    category: 'functional',
    description: '"Settings" in the menu lets a user change the name the app shows ("Name", "Save name")',
    steps: [
      'Sign up as a new user and click "Settings" in the menu',
      'The "Name" box holds the name signed up with',
      'Replace it with a new unique name and click "Save name"',
      'The page says "Your name is saved." and the header says "Signed in as <new name>"',
    ],
    dependsOn: ['sign-up'],
    sourceDir: '41-settings',
    insertions: [
      route('/settings', 'settings'),
      route('/settings/name', 'settings-name'),
      nav('/settings', 'Settings', 'user'),
    ],
    verify: [
      'sign_up',
      `[ "$(get /settings)" = 200 ] && shows 'Save name' || fail "GET /settings shows no name form"`,
      `[ "$(post /settings/name 'name=Verify Renamed')" = 303 ] || fail "saving the name failed"`,
      `get /settings >/dev/null; shows 'Signed in as Verify Renamed' || fail "the header does not show the new name"`,
      `post /settings/name name= >/dev/null; get /settings >/dev/null; shows 'Signed in as Verify Renamed' || fail "an empty name was saved"`,
    ].join('\n'),
    summary: 'Settings page (your name)',
    check: [
      { do: [{ signUp: 'cook' }, { click: { role: 'link', name: 'Settings' } }] },
      { expect: [{ element: { role: 'heading', name: 'Settings' } }, { see: '{name:cook}' }] },
      { do: [{ fill: { role: 'textbox', name: 'Name' }, text: 'Chef {tag}' }, SAVE_SETTING('Save name')] },
      { expect: [{ see: 'Your name is saved.' }, { see: 'Signed in as Chef {tag}' }] },
    ],
    regression: {
      path: 'app/features/settings-name.js',
      find: "ctx.db.run('UPDATE users SET name = ? WHERE id = ?', [name, ctx.user.id]);",
      replace: "ctx.db.run('UPDATE users SET name = ? WHERE id = ?', [name, -ctx.user.id]);",
      breaks: '"Save name" says saved but the name stays',
    },
  },
  {
    key: 'change-password',
    area: 'settings',
    category: 'security',
    description:
      'Change password on "Settings": the current password, the new one twice (at least 8 characters); afterwards only the new password logs in',
    steps: [
      'Sign up as a new user and open "Settings"',
      'Enter a wrong current password and a new password twice, and click "Change password"',
      'The page says "The current password is wrong."',
      'Enter the right current password and a new password twice, and click "Change password"',
      'The page says "Your password is changed."',
      'Log out and log in with the new password',
      'The header says "Signed in as <name>"',
    ],
    dependsOn: ['settings', 'log-in'],
    sourceDir: '42-change-password',
    insertions: [
      route('/settings/password', 'change-password'),
      ...settingsSection("import { passwordSection } from './change-password.js';", 'passwordSection,'),
    ],
    verify: [
      'sign_up',
      `post /settings/password current=wrong-password password=new-password-1 repeat=new-password-1 >/dev/null`,
      `post /logout >/dev/null; [ "$(post /login "email=$email" password=new-password-1)" = 401 ] || fail "a wrong current password changed the password"`,
      `post /login "email=$email" password=secret-pass-1 >/dev/null`,
      `post /settings/password current=secret-pass-1 password=new-password-1 repeat=new-password-1 >/dev/null`,
      `post /logout >/dev/null; [ "$(post /login "email=$email" password=new-password-1)" = 303 ] || fail "the new password does not log in"`,
    ].join('\n'),
    summary: 'change password',
    check: [
      { do: [{ signUp: 'cook' }, { goto: '/settings' }] },
      { do: changePassword('not-my-password', 'brand-new-{tag}') },
      { expect: [{ see: 'The current password is wrong.' }] },
      { do: changePassword('{password:cook}', 'brand-new-{tag}') },
      { expect: [{ see: 'Your password is changed.' }] },
      {
        do: [
          { logOut: true },
          { goto: '/login' },
          { fill: { role: 'textbox', name: 'Email' }, text: '{email:cook}' },
          { fill: { role: 'textbox', name: 'Password' }, text: 'brand-new-{tag}' },
          { click: { role: 'button', name: 'Log in' } },
        ],
      },
      { expect: [{ see: 'Signed in as {name:cook}' }] },
    ],
    regression: {
      path: 'app/features/change-password.js',
      find: '[hashPassword(password), ctx.user.id]',
      replace: "[hashPassword(ctx.form.get('current') ?? ''), ctx.user.id]",
      breaks: '"Change password" says changed but only the old password works',
    },
  },
  {
    key: 'page-size',
    area: 'settings',
    category: 'functional',
    description:
      '"Recipes per page" on "Settings" (10, 20 or 50) sets how many recipes each page of "My recipes" shows',
    steps: [
      'Sign up as a new user and import 12 recipes with unique titles',
      'On "Settings" choose 20 in "Recipes per page" and click "Save page size"',
      'The page says "My recipes now shows 20 recipes per page."',
      'Open "My recipes"',
      'All 12 recipes are listed, with "Page 1 of 1" and no "Next page"',
    ],
    dependsOn: ['recipe-pages', 'settings'],
    sourceDir: '43-page-size',
    insertions: [
      migrations(['users-page-size', 'ALTER TABLE users ADD COLUMN page_size INTEGER NOT NULL DEFAULT 10']),
      route('/settings/page-size', 'page-size'),
      ...settingsSection("import { pageSizeSection } from './page-size.js';", 'pageSizeSection,'),
      insertAbove(
        'app/features/recipe-pages.js',
        '// -- page size: add above this line --',
        'size = ctx.user?.page_size ?? size;',
      ),
    ],
    verify: [
      'sign_up',
      `[ "$(post /settings/page-size size=20)" = 303 ] || fail "saving the page size failed"`,
      `post /settings/page-size size=7 >/dev/null; get /settings >/dev/null; shows '<option value="20" selected>' || fail "the page size is not kept (or 7 was accepted)"`,
    ].join('\n'),
    summary: 'recipes per page setting',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...importRecipes(Array.from({ length: 12 }, (_, index) => `Soup ${index + 1} {tag} | 30 | water`)),
        ],
      },
      {
        do: [
          { goto: '/settings' },
          { select: { role: 'combobox', name: 'Recipes per page' }, option: '20' },
          SAVE_SETTING('Save page size'),
        ],
      },
      { expect: [{ see: 'My recipes now shows 20 recipes per page.' }] },
      { do: [{ goto: '/recipes' }] },
      {
        expect: [
          { count: 'Recipes', is: { equals: 12 } },
          { see: 'Page 1 of 1' },
          { noElement: { role: 'link', name: 'Next page' } },
        ],
      },
    ],
    regression: {
      path: 'app/features/recipe-pages.js',
      find: 'size = ctx.user?.page_size ?? size;',
      replace: 'size = ctx.user?.page_size ? size : size;',
      breaks: '"Recipes per page" is saved but My recipes still shows 10 per page',
    },
  },
  {
    key: 'week-start',
    area: 'settings',
    category: 'functional',
    description:
      '"Week starts on" on "Settings" (Monday or Sunday) sets the first day of each week of the meal plan',
    steps: [
      'Sign up as a new user, open "Settings", choose "Sunday" in "Week starts on" and click "Save week start"',
      'The page says "Your weeks now start on Sunday."',
      'Open "Meal plan"',
      'The page says "Week of Sunday …"',
    ],
    dependsOn: ['meal-plan', 'settings'],
    sourceDir: '44-week-start',
    insertions: [
      migrations(['users-week-start', 'ALTER TABLE users ADD COLUMN week_start INTEGER NOT NULL DEFAULT 1']),
      route('/settings/week-start', 'week-start'),
      ...settingsSection("import { weekStartSection } from './week-start.js';", 'weekStartSection,'),
      insertAbove(
        'app/plan.js',
        '// -- week start: add above this line --',
        'start = ctx.user?.week_start ?? start;',
      ),
    ],
    verify: [
      'sign_up',
      `[ "$(post /settings/week-start day=0)" = 303 ] || fail "saving the week start failed"`,
      `get /plan >/dev/null; shows 'Week of Sunday' || fail "the plan does not start on Sunday"`,
    ].join('\n'),
    summary: 'week start setting for the meal plan',
    check: [
      {
        do: [
          { signUp: 'cook' },
          { goto: '/settings' },
          { select: { role: 'combobox', name: 'Week starts on' }, option: 'Sunday' },
          SAVE_SETTING('Save week start'),
        ],
      },
      { expect: [{ see: 'Your weeks now start on Sunday.' }] },
      { do: [{ goto: '/plan' }] },
      { expect: [{ see: 'Week of Sunday' }, { see: '(today)' }] },
    ],
    regression: {
      path: 'app/plan.js',
      find: 'start = ctx.user?.week_start ?? start;',
      replace: 'start = ctx.user?.week_start ? 1 : start;',
      breaks: 'the week start setting is saved but the plan still starts on Monday',
    },
  },
  {
    key: 'delete-account',
    area: 'settings',
    category: 'security',
    description:
      '"Delete my account" on "Settings" asks for the password and a confirmation, then deletes the account and all its data and logs out',
    steps: [
      'Sign up as a new user, add a recipe, make it public, and open "Settings"',
      'Type the password into "Password to confirm", click "Delete my account" and confirm',
      'The page says "Your account and all your data are deleted." and nobody is signed in',
      'Try to log in with that email and password',
      'The page says "Email or password is wrong."',
      'Open "Explore"',
      'The public recipe is gone',
    ],
    dependsOn: ['settings', 'explore', 'log-in'],
    sourceDir: '45-delete-account',
    insertions: [
      route('/settings/delete', 'delete-account'),
      ...settingsSection(
        "import { deleteAccountSection } from './delete-account.js';",
        'deleteAccountSection,',
      ),
    ],
    verify: [
      'sign_up',
      `[ "$(post /settings/delete password=wrong-password)" = 303 ] && [ "$(get /settings)" = 200 ] || fail "a wrong password deleted the account"`,
      `[ "$(post /settings/delete password=secret-pass-1)" = 303 ] || fail "deleting the account failed"`,
      `[ "$(post /login "email=$email" password=secret-pass-1)" = 401 ] || fail "the deleted account can still log in"`,
    ].join('\n'),
    summary: 'delete your account and all its data',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Farewell cake {tag}', ['flour']),
          { click: { role: 'link', name: 'Farewell cake {tag}' } },
          { click: { role: 'button', name: 'Make public' } },
          { goto: '/settings' },
        ],
      },
      {
        do: [
          { fill: { role: 'textbox', name: 'Password to confirm' }, text: '{password:cook}' },
          { click: { role: 'button', name: 'Delete my account' } },
        ],
        expect: [{ dialogSaid: 'Delete your account and all your recipes, plans and lists?' }],
      },
      { expect: [{ see: 'Your account and all your data are deleted.' }, { notSee: 'Signed in as' }] },
      {
        do: [
          { goto: '/login' },
          { fill: { role: 'textbox', name: 'Email' }, text: '{email:cook}' },
          { fill: { role: 'textbox', name: 'Password' }, text: '{password:cook}' },
          { click: { role: 'button', name: 'Log in' } },
        ],
      },
      { expect: [{ see: 'Email or password is wrong.' }] },
      { do: [{ goto: '/explore' }] },
      { expect: [{ notSee: 'Farewell cake {tag}' }] },
    ],
    regression: {
      path: 'app/features/delete-account.js',
      find: "  'DELETE FROM users WHERE id = ?',\n",
      replace: '',
      breaks: 'a deleted account can still log in',
    },
  },
];

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
