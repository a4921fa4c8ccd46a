/** Browsing recipes: pages of the list, the count, tags and the tag filter. */
import { insertAbove, type MealPlannerFeatureInput, migrations, route } from './catalogue.js';
import { addRecipe, recipeSection } from './features-recipes.js';
import { choose, DISHES, IMPORTS, importRecipes, importShell } from './finding-steps.js';

/** Paging, counting, tagging and filtering by tag. */
export const BROWSING_FEATURES: MealPlannerFeatureInput[] = [
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
