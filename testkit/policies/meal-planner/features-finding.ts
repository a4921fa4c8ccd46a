/** Finding recipes: importing many at once, then searching, sorting and filtering the list. */
import { type MealPlannerFeatureInput, nav, route } from './catalogue.js';
import { choose, importRecipes, importShell, orderStep, SORT_RECIPES } from './finding-steps.js';

/** Re-exported for the features that import recipes too. */
export { importRecipes } from './finding-steps.js';

/** Importing, searching, sorting and filtering recipes. */
export const FINDING_FEATURES: MealPlannerFeatureInput[] = [
  {
    key: 'import-recipes',
    area: 'finding',
    category: 'functional',
    description:
      'Import recipes: the "Import recipes" page adds many recipes at once, one per line as "Title | minutes | ingredient; ingredient"; a bad line imports nothing and names the line',
    steps: [
      'Sign up as a new user and click "Import recipes" in the menu',
      'Paste three lines with unique titles, minutes and ingredients and click "Import"',
      '"My recipes" says "Imported 3 recipes." and lists all three',
      'Open "Import recipes" again, paste a line without ingredients and click "Import"',
      'The page says "Line 1: Add at least one ingredient."',
      'Open "My recipes"',
      'It still lists three recipes',
    ],
    dependsOn: ['my-recipes', 'recipe-rules'],
    sourceDir: '13-import-recipes',
    insertions: [
      route('/recipes/import', 'import-recipes'),
      nav('/recipes/import', 'Import recipes', 'user'),
    ],
    verify: [
      'sign_up',
      importShell('Verify toast | 5 | bread; butter', 'Verify tea | 3 | tea'),
      `get /recipes >/dev/null; shows 'Verify toast' && shows 'Verify tea' || fail "the imported recipes are not listed"`,
      `[ "$(post /recipes/import 'recipes=No ingredients | 5 |')" = 400 ] && shows 'Line 1' || fail "a line without ingredients was imported"`,
    ].join('\n'),
    summary: 'import many recipes at once (one per line)',
    check: [
      {
        do: [{ signUp: 'cook' }, { click: { role: 'link', name: 'Import recipes' } }],
        expect: [{ path: '/recipes/import' }],
      },
      {
        do: [
          {
            fill: { role: 'textbox', name: 'Recipes, one per line' },
            text: 'Porridge {tag} | 10 | oats; milk\nOmelette {tag} | 8 | 3 eggs; butter\nFlatbread {tag} | 25 | flour; water; salt',
          },
          { click: { role: 'button', name: 'Import' } },
        ],
      },
      {
        expect: [
          { path: '/recipes' },
          { see: 'Imported 3 recipes.' },
          { list: 'Recipes', has: ['Porridge {tag}', 'Omelette {tag}', 'Flatbread {tag}'] },
        ],
      },
      { do: importRecipes(['Plain water {tag} | 1 |']) },
      { expect: [{ see: 'Line 1: Add at least one ingredient.' }] },
      { do: [{ goto: '/recipes' }] },
      { expect: [{ count: 'Recipes', is: { equals: 3 } }] },
    ],
    regression: {
      path: 'app/features/import-recipes.js',
      find: 'for (const recipe of recipes) createRecipe(ctx.db, ctx.user.id, recipe);',
      replace: 'for (const recipe of recipes.slice(0, 1)) createRecipe(ctx.db, ctx.user.id, recipe);',
      breaks: 'only the first line is imported although the page says all were',
    },
  },
  {
    key: 'recipe-search',
    area: 'finding',
    category: 'functional',
    description:
      'Search recipes: the "Search recipes" box on "My recipes" keeps the recipes whose title or ingredients contain the words typed',
    steps: [
      'Sign up as a new user and import "Lentil soup" (red lentils), "Tomato salad" (tomatoes) and "Dal" (yellow lentils) with unique titles',
      'Type "lentils" into "Search recipes" and press Enter',
      'The list shows the lentil soup and the dal (found by an ingredient) but not the tomato salad',
      'Search for a word no recipe has',
      'The page says "No recipes match these options."',
    ],
    dependsOn: ['import-recipes'],
    sourceDir: '14-recipe-search',
    insertions: [route('/recipes', 'recipe-search')],
    verify: [
      'sign_up',
      importShell('Verify lentil soup | 20 | red lentils', 'Verify salad | 10 | tomatoes'),
      `get '/recipes?q=lentils' >/dev/null; shows 'Verify lentil soup' || fail "searching for lentils does not find the soup"`,
      `shows 'Verify salad' && fail "searching for lentils also lists the salad"`,
      `get '/recipes?q=%25' >/dev/null; shows 'Verify salad' && fail "a % in the search matches everything"`,
      'true',
    ].join('\n'),
    summary: 'search My recipes by title or ingredient',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...importRecipes([
            'Lentil soup {tag} | 20 | red lentils; onion',
            'Tomato salad {tag} | 10 | tomatoes; basil',
            'Dal {tag} | 40 | yellow lentils; rice',
          ]),
        ],
      },
      { do: [{ fill: { role: 'searchbox', name: 'Search recipes' }, text: 'lentils', submit: true }] },
      {
        expect: [{ list: 'Recipes', has: ['Lentil soup {tag}', 'Dal {tag}'], lacks: ['Tomato salad {tag}'] }],
      },
      {
        do: [
          { fill: { role: 'searchbox', name: 'Search recipes' }, text: 'no-such-dish-{tag}', submit: true },
        ],
      },
      { expect: [{ see: 'No recipes match these options.' }] },
    ],
    regression: {
      path: 'app/features/recipe-search.js',
      find: 'options.params.push(likePattern(query), likePattern(query));',
      replace: "options.params.push(likePattern(query), '');",
      breaks: 'the search no longer looks at ingredients',
    },
  },
  {
    key: 'recipe-sort',
    area: 'finding',
    category: 'functional',
    description:
      'Sort recipes: "Sort by" on "My recipes" orders the list newest first (the default), oldest first, by title A–Z or quickest first',
    steps: [
      'Sign up as a new user and import "Beta stew" (5 minutes), "Gamma pie" (90 minutes) and "Alpha salad" (30 minutes), in that order, with unique titles',
      'The list shows the newest first: Alpha salad, Gamma pie, Beta stew',
      'Choose "Title A–Z" in "Sort by" and click "Show"',
      'The list shows Alpha salad, Beta stew, Gamma pie',
      'Choose "Quickest first" and click "Show"',
      'The list shows Beta stew, Alpha salad, Gamma pie',
    ],
    dependsOn: ['import-recipes'],
    sourceDir: '15-recipe-sort',
    insertions: [route('/recipes', 'recipe-sort')],
    verify: [
      'sign_up',
      importShell('Verify slow | 90 | beans', 'Verify fast | 5 | bread'),
      `get '/recipes?sort=quickest' >/dev/null; tr -d '\\n' <"$work/last" | grep -q 'Verify fast.*Verify slow' || fail "quickest first does not put the 5-minute recipe first"`,
      `get '/recipes?sort=title' >/dev/null; tr -d '\\n' <"$work/last" | grep -q 'Verify fast.*Verify slow' || fail "title A-Z is not alphabetical"`,
    ].join('\n'),
    summary: 'sort My recipes (newest, oldest, title, quickest)',
    check: [
      { do: [{ signUp: 'cook' }, ...importRecipes(SORT_RECIPES)] },
      orderStep(['Alpha salad', 'Gamma pie', 'Beta stew']),
      { do: choose('Sort by', 'Title A–Z') },
      orderStep(['Alpha salad', 'Beta stew', 'Gamma pie']),
      { do: choose('Sort by', 'Quickest first') },
      orderStep(['Beta stew', 'Alpha salad', 'Gamma pie']),
    ],
    regression: {
      path: 'app/features/recipe-sort.js',
      find: "quickest: ['Quickest first', ['minutes ASC']],",
      replace: "quickest: ['Quickest first', ['minutes DESC']],",
      breaks: '"Quickest first" lists the slowest recipe first',
    },
  },
  {
    key: 'time-filter',
    area: 'finding',
    category: 'functional',
    description:
      'Filter by time: "Ready in" on "My recipes" keeps the recipes that take at most 15, 30 or 60 minutes',
    steps: [
      'Sign up as a new user and import recipes taking 5, 25 and 180 minutes, with unique titles',
      'Choose "30 minutes or less" in "Ready in" and click "Show"',
      'The 5- and 25-minute recipes are listed, the 180-minute one is not',
      'Choose "15 minutes or less" and click "Show"',
      'Only the 5-minute recipe is listed',
    ],
    dependsOn: ['import-recipes'],
    sourceDir: '16-time-filter',
    insertions: [route('/recipes', 'time-filter')],
    verify: [
      'sign_up',
      importShell('Verify slow | 180 | beans', 'Verify fast | 5 | bread'),
      `get '/recipes?time=30' >/dev/null; shows 'Verify fast' || fail "the 5-minute recipe is not kept"`,
      `shows 'Verify slow' && fail "the 180-minute recipe is kept under 30 minutes or less"`,
      'true',
    ].join('\n'),
    summary: 'filter My recipes by time (Ready in)',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...importRecipes([
            'Quick toast {tag} | 5 | bread',
            'Weeknight pasta {tag} | 25 | pasta',
            'Slow roast {tag} | 180 | lamb',
          ]),
        ],
      },
      { do: choose('Ready in', '30 minutes or less') },
      {
        expect: [
          {
            list: 'Recipes',
            has: ['Quick toast {tag}', 'Weeknight pasta {tag}'],
            lacks: ['Slow roast {tag}'],
          },
        ],
      },
      { do: choose('Ready in', '15 minutes or less') },
      {
        expect: [
          {
            list: 'Recipes',
            has: ['Quick toast {tag}'],
            lacks: ['Weeknight pasta {tag}', 'Slow roast {tag}'],
          },
        ],
      },
    ],
    regression: {
      path: 'app/features/time-filter.js',
      find: 'options.params.push(Number(chosen));',
      replace: 'options.params.push(Number(chosen) * 10);',
      breaks: '"30 minutes or less" also keeps a three-hour roast',
    },
  },
];
