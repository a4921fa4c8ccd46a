/**
 * The shape of the meal-planner catalogue: what the scripted roles know about each feature of
 * examples/meal-planner/app_spec.md (what the initializer lists, which files a generator writes and which lines it
 * inserts above marker comments, how it checks its work from the shell, which browser check the evaluator runs, and
 * the regression a simulated model may plant), plus the helpers the area files use to write it briefly.
 */
import { z } from 'zod';
import { CheckStep } from './check-format.js';

/** Lines inserted into an existing file just above the line holding `marker` (with that line's indentation). */
export const MarkerInsertion = z.strictObject({
  path: z.string().min(1),
  marker: z.string().min(1),
  lines: z.array(z.string()).min(1),
});
export type MarkerInsertion = z.infer<typeof MarkerInsertion>;

/** A change that breaks a feature that passed (a regression a simulated model may plant), and what it breaks. */
export const Regression = z.strictObject({
  path: z.string().min(1),
  find: z.string().min(1),
  replace: z.string(),
  /** What goes wrong, in a user's words. */
  breaks: z.string().min(1),
});
export type Regression = z.infer<typeof Regression>;

/** The areas of the app, in build order. */
export const Area = z.enum([
  'accounts',
  'recipes',
  'finding',
  'sharing',
  'meal plan',
  'shopping',
  'settings',
  'dashboard',
]);
export type Area = z.infer<typeof Area>;

/** One feature of the meal planner. */
export const MealPlannerFeature = z.strictObject({
  /** Stable name within the catalogue (feature ids follow list order). */
  key: z.string().regex(/^[a-z][a-z0-9-]*$/),
  area: Area,
  /** The feature list's `category` (the quickstart's field). */
  category: z.enum(['functional', 'validation', 'security']),
  description: z.string().min(10),
  steps: z.array(z.string().min(3)).min(2),
  /** Keys of the features this one needs (its `depends_on`, as ids, in the feature list). */
  dependsOn: z.array(z.string()).default([]),
  /** Folder under `examples/meal-planner/scripted/features/` whose files the generator writes. */
  sourceDir: z.string().min(1),
  /** Lines inserted into existing files: the route table, the nav menu, the schema, other features' hooks. */
  insertions: z.array(MarkerInsertion).min(1),
  /** Shell checks run against the started app (see verify.ts); `$base` is the app URL. */
  verify: z.string().min(1),
  /** Commit subject after the feature id. */
  summary: z.string().min(5),
  /** The browser check: one entry per step. */
  check: z.array(CheckStep),
  regression: Regression,
});
export type MealPlannerFeature = z.infer<typeof MealPlannerFeature>;
/** What an area file writes (defaults and check steps may be left out). */
export type MealPlannerFeatureInput = z.input<typeof MealPlannerFeature>;

export const ROUTES_FILE = 'app/routes.js';
export const NAV_FILE = 'app/nav.js';
export const SCHEMA_FILE = 'app/schema.js';
const ROUTE_MARKER = '// -- routes: add one line per feature above this line --';
const NAV_MARKER = '// -- nav: add one line per page above this line --';
const SCHEMA_MARKER = '// -- schema: add migrations above this line --';

/** One line in the route table: `path` handled (or hooked) by `app/features/<module>.js`. */
export function route(path: string, module: string): MarkerInsertion {
  return { path: ROUTES_FILE, marker: ROUTE_MARKER, lines: [`['${path}', '${module}'],`] };
}

/** One entry of the nav menu. */
export function nav(
  href: string,
  label: string,
  audience: 'all' | 'guest' | 'user',
  post = false,
): MarkerInsertion {
  const method = post ? ", method: 'post'" : '';
  return {
    path: NAV_FILE,
    marker: NAV_MARKER,
    lines: [`{ href: '${href}', label: '${label}', for: '${audience}'${method} },`],
  };
}

/** Migrations (one line each: `[name, SQL]`). */
export function migrations(...entries: Array<[string, string]>): MarkerInsertion {
  return {
    path: SCHEMA_FILE,
    marker: SCHEMA_MARKER,
    lines: entries.map(([name, sql]) => `['${name}', ${JSON.stringify(sql)}],`),
  };
}

/** Lines inserted above `marker` in `path` (a hook another feature left for it). */
export function insertAbove(path: string, marker: string, ...lines: string[]): MarkerInsertion {
  return { path, marker, lines };
}
