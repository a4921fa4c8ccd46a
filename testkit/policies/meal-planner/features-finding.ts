/** Finding recipes: importing many at once, then searching, sorting, filtering, paging and counting the list. */
import { insertAbove, type MealPlannerFeatureInput, migrations, nav, route } from './catalogue.js';
import type { CheckAction, CheckStepInput } from './check-format.js';
import { addRecipe, recipeSection } from './features-recipes.js';

const IMPORTS = '// -- imports: add above this line --';
const SHOW: CheckAction = { click: { role: 'button', name: 'Show' } };

/** Actions that import recipes through "Import recipes" (lines "Title | minutes | ingredient; …"). */
export function importRecipes(lines: string[]): CheckAction[] {
  return [
    { goto: '/recipes/import' },
    { fill: { role: 'textbox', name: 'Recipes, one per line' }, text: lines.join('\n') },
    { click: { role: 'button', name: 'Import' } },
  ];
}

/** Shell: imports recipes for the signed-in user (one argument per line). */
function importShell(...lines: string[]): string {
  const text = lines.join('\\n');
  return `[ "$(post /recipes/import $'recipes=${text}')" = 303 ] || fail "POST /recipes/import did not import"`;
}

function choose(name: string, option: string): CheckAction[] {
  return [{ select: { role: 'combobox', name }, option }, SHOW];
}

function orderStep(titles: string[]): CheckStepInput {
  return { expect: [{ order: titles.map((title) => `${title} {tag}`), in: 'Recipes' }] };
}

const SORT_RECIPES = [
  'Beta stew {tag} | 5 | beans',
  'Gamma pie {tag} | 90 | pastry',
  'Alpha salad {tag} | 30 | lettuce',
];
const DISHES = Array.from(
  { length: 12 },
  (_, index) => `Dish ${String(index + 1).padStart(2, '0')} {tag} | 20 | rice`,
);

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
  {
    key: 'recipe-pages',
    area: 'finding',
    category: 'functional',
    description:
      'Pages of recipes: "My recipes" shows 10 recipes per page with "Page N of M" and "Previous page" / "Next page" links',
    steps: [
      'Sign up as a new user and import 12 recipes with unique titles',
      'On "My recipes", 10 recipes are listed and the page says "Page 1 of 2"',
      'Click "Next page"',
      'The other 2 recipes are listed, the page says "Page 2 of 2" and there is no "Next page" link',
      'Click "Previous page"',
      'The first 10 recipes are listed again with "Page 1 of 2"',
    ],
    dependsOn: ['import-recipes'],
    sourceDir: '17-recipe-pages',
    insertions: [route('/recipes', 'recipe-pages')],
    verify: [
      'sign_up',
      importShell(...Array.from({ length: 12 }, (_, index) => `Verify dish ${index + 1} | 10 | rice`)),
      `get /recipes >/dev/null; shows 'Page 1 of 2' || fail "12 recipes do not make 2 pages"`,
      `[ "$(grep -o 'href="/recipes/[0-9]*"' "$work/last" | wc -l)" = 10 ] || fail "page 1 does not list 10 recipes"`,
      `get '/recipes?page=2' >/dev/null; [ "$(grep -o 'href="/recipes/[0-9]*"' "$work/last" | wc -l)" = 2 ] || fail "page 2 does not list the last 2 recipes"`,
    ].join('\n'),
    summary: 'pages of 10 recipes (Previous page / Next page)',
    check: [
      { do: [{ signUp: 'cook' }, ...importRecipes(DISHES)] },
      {
        expect: [
          { count: 'Recipes', is: { equals: 10 } },
          { see: 'Page 1 of 2' },
          { list: 'Recipes', has: ['Dish 12 {tag}', 'Dish 03 {tag}'], lacks: ['Dish 02 {tag}'] },
        ],
      },
      { do: [{ click: { role: 'link', name: 'Next page' } }] },
      {
        expect: [
          { count: 'Recipes', is: { equals: 2 } },
          { list: 'Recipes', has: ['Dish 02 {tag}', 'Dish 01 {tag}'] },
          { see: 'Page 2 of 2' },
          { noElement: { role: 'link', name: 'Next page' } },
        ],
      },
      { do: [{ click: { role: 'link', name: 'Previous page' } }] },
      { expect: [{ count: 'Recipes', is: { equals: 10 } }, { see: 'Page 1 of 2' }] },
    ],
    regression: {
      path: 'app/features/recipe-pages.js',
      find: 'offset: (page - 1) * size',
      replace: 'offset: 0',
      breaks: '"Next page" shows the first page again',
    },
  },
  {
    key: 'recipe-count',
    area: 'finding',
    category: 'functional',
    description:
      'Recipe count: "My recipes" says "You have N recipes." and, while a search narrows the list, "M of N recipes match."',
    steps: [
      'Sign up as a new user and import three recipes with unique titles, one of them with "lemon"',
      'My recipes says "You have 3 recipes."',
      'Search for "lemon"',
      'The page says "1 of 3 recipes match."',
    ],
    dependsOn: ['recipe-search'],
    sourceDir: '18-recipe-count',
    insertions: [route('/recipes', 'recipe-count')],
    verify: [
      'sign_up',
      importShell('Verify lemon tart | 50 | lemons', 'Verify bread | 60 | flour'),
      `get /recipes >/dev/null; shows 'You have 2 recipes.' || fail "the count is missing"`,
      `get '/recipes?q=lemon' >/dev/null; shows '1 of 2 recipes match.' || fail "the count of matches is missing"`,
    ].join('\n'),
    summary: 'recipe count on My recipes',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...importRecipes([
            'Lemon tart {tag} | 50 | 3 lemons; pastry',
            'Rye bread {tag} | 60 | rye flour',
            'Pesto {tag} | 10 | basil; pine nuts',
          ]),
        ],
      },
      { expect: [{ see: 'You have 3 recipes.' }] },
      { do: [{ fill: { role: 'searchbox', name: 'Search recipes' }, text: 'lemon', submit: true }] },
      { expect: [{ see: '1 of 3 recipes match.' }] },
    ],
    regression: {
      path: 'app/features/recipe-count.js',
      find: '`${matching} of ${recipes(all)} match.`',
      replace: '`${all} of ${recipes(all)} match.`',
      breaks: 'the count of matches always equals the number of recipes',
    },
  },
  {
    key: 'tags',
    area: 'finding',
    category: 'functional',
    description:
      'Tags: the recipe form has "Tags, separated by commas"; a recipe page lists its tags (lower case, each once) under "Tags", each linking to "My recipes"',
    steps: [
      'Sign up as a new user, open "New recipe", fill in a unique title, an ingredient and the tags "Quick, Vegetarian, quick", and click "Save recipe"',
      'Open the recipe',
      'The page lists "quick" and "vegetarian" under "Tags", each once',
      'Click "Edit recipe"',
      'The tags box holds "quick, vegetarian"',
    ],
    dependsOn: ['edit-recipe'],
    sourceDir: '19-tags',
    insertions: [
      migrations(['recipes-tags', "ALTER TABLE recipes ADD COLUMN tags TEXT NOT NULL DEFAULT ''"]),
      insertAbove('app/recipes.js', '// -- recipe columns: add above this line --', "'tags',"),
      insertAbove('app/recipe-form.js', IMPORTS, "import { normalizeTags } from './tags.js';"),
      insertAbove(
        'app/recipe-form.js',
        '// -- recipe fields: add above this line --',
        "{ render: (values) => textField('Tags, separated by commas', 'tags', values.tags), read: (form, recipe) => { recipe.tags = normalizeTags(form.get('tags')); } },",
      ),
      insertAbove('app/features/recipe-page.js', IMPORTS, "import { tagsSection } from '../tags.js';"),
      recipeSection('tagsSection,'),
    ],
    verify: [
      'sign_up',
      `[ "$(post /recipes/new title='Verify tagged' ingredients=salt 'tags=Quick, quick, Soup')" = 303 ] || fail "saving a recipe with tags failed"`,
      `get /recipes >/dev/null; recipe=$(grep -o 'href="/recipes/[0-9]*"' "$work/last" | head -1 | grep -o '[0-9]*')`,
      `get "/recipes/$recipe" >/dev/null; shows '>quick<' && shows '>soup<' || fail "the recipe page does not list the tags"`,
      `[ "$(grep -o '>quick<' "$work/last" | wc -l)" = 1 ] || fail "a tag is listed twice"`,
    ].join('\n'),
    summary: 'recipe tags (form field, listed on the recipe page)',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Veggie chili {tag}', ['2 tins of beans'], { tags: 'Quick, Vegetarian, quick' }),
        ],
      },
      { do: [{ click: { role: 'link', name: 'Veggie chili {tag}' } }] },
      {
        expect: [
          { list: 'Tags', has: ['quick', 'vegetarian'] },
          { count: 'Tags', is: { equals: 2 } },
        ],
      },
      { do: [{ click: { role: 'link', name: 'Edit recipe' } }] },
      { expect: [{ see: 'quick, vegetarian' }] },
    ],
    regression: {
      path: 'app/tags.js',
      find: 'return [...new Set(tags)].join',
      replace: 'return tags.join',
      breaks: 'a tag typed twice is listed twice',
    },
  },
  {
    key: 'tag-filter',
    area: 'finding',
    category: 'functional',
    description:
      'Filter by tag: "Tag" on "My recipes" keeps the recipes with the tag chosen; a tag link on a recipe page opens that filtered list',
    steps: [
      'Sign up as a new user and add a recipe tagged "soup" and one tagged "salad", with unique titles',
      'On "My recipes", choose "soup" in "Tag" and click "Show"',
      'Only the soup is listed',
      'Open the salad and click its tag "salad"',
      'Only the salad is listed',
    ],
    dependsOn: ['tags'],
    sourceDir: '20-tag-filter',
    insertions: [route('/recipes', 'tag-filter')],
    verify: [
      'sign_up',
      `post /recipes/new title='Verify soup' ingredients=water tags=soup >/dev/null`,
      `post /recipes/new title='Verify salad' ingredients=lettuce tags=salad >/dev/null`,
      `get '/recipes?tag=soup' >/dev/null; shows '>Verify soup</a>' || fail "the soup is not kept by its tag"`,
      `shows '>Verify salad</a>' && fail "the salad is listed under the tag soup"`,
      'true',
    ].join('\n'),
    summary: 'filter My recipes by tag',
    check: [
      {
        do: [
          { signUp: 'cook' },
          ...addRecipe('Onion soup {tag}', ['6 onions'], { tags: 'soup' }),
          ...addRecipe('Green salad {tag}', ['1 lettuce'], { tags: 'salad' }),
        ],
      },
      { do: [{ goto: '/recipes' }, ...choose('Tag', 'soup')] },
      { expect: [{ list: 'Recipes', has: ['Onion soup {tag}'], lacks: ['Green salad {tag}'] }] },
      {
        do: [
          { goto: '/recipes' },
          { click: { role: 'link', name: 'Green salad {tag}' } },
          { click: { role: 'link', name: 'salad' } },
        ],
      },
      {
        expect: [
          { path: '/recipes' },
          { list: 'Recipes', has: ['Green salad {tag}'], lacks: ['Onion soup {tag}'] },
        ],
      },
    ],
    regression: {
      path: 'app/features/tag-filter.js',
      find: '  options.params.push(`%,${chosen},%`);\n',
      replace: "  options.params.push('%');\n",
      breaks: 'choosing a tag keeps every recipe',
    },
  },
];
