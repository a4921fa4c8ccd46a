/** Settings: your name, password, recipes per page, the week's first day, and deleting the account. */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';
import type { CheckAction } from './check-format.js';
import { importRecipes } from './features-finding.js';
import { addRecipe } from './features-recipes.js';

const IMPORTS = '// -- imports: add above this line --';
const SETTINGS_PAGE = 'app/features/settings.js';

function settingsSection(importLine: string, entry: string) {
  return [
    insertAbove(SETTINGS_PAGE, IMPORTS, importLine),
    insertAbove(SETTINGS_PAGE, '// -- settings sections: add above this line --', entry),
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
