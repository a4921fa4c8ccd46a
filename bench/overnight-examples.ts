/**
 * The examples the overnight bench builds: the todo example (8 features, no dependencies to install) and the
 * meal planner (50 features with `depends_on`, SQLite through sql.js, accounts; `npm ci` of sql.js and dayjs in
 * every app start, from the loopback registry only). Each brings its spec, its size, and the judge of its final
 * code: which features really work, whatever the run claims.
 */
import { z } from 'zod';
import { MEAL_PLANNER_FEATURES } from '../testkit/policies/meal-planner/features.js';
import { MEAL_PLANNER_SPEC_PATH, mealPlannerFeatureFiles } from '../testkit/policies/meal-planner/sources.js';
import { TODO_FEATURES } from '../testkit/policies/todo-features.js';
import { TODO_SPEC_PATH } from '../testkit/policies/todo-sources.js';
import { MISSING_MODULE } from '../testkit/simulated/mistake-targets.js';
import { type CodeReader, featureWorks } from './overnight-figures.js';

/** The examples the section can build. */
export const OvernightExampleName = z.enum(['todo', 'meal-planner']);
export type OvernightExampleName = z.infer<typeof OvernightExampleName>;

/** One example as the overnight bench uses it. */
export interface OvernightExample {
  name: OvernightExampleName;
  specPath: string;
  /** Features in its spec. */
  maxFeatures: number;
  /** Whether its app installs npm packages (the bench then serves them from the loopback registry). */
  installs: boolean;
  /** Whether the feature at `position` (0-based) works in the final code. */
  works(read: CodeReader, position: number): boolean;
}

/**
 * Whether the meal-planner feature at `position` works in the final code: its files are there, every inserted line
 * is in place, its catalogue regression is not planted (its `find` text is there and not the `replace`), and the server does not
 * import the module a broken start left behind. The scripted generator writes nothing else, so this is "the
 * evaluator's browser check would pass".
 */
export function mealPlannerFeatureWorks(read: CodeReader, position: number): boolean {
  const feature = MEAL_PLANNER_FEATURES[position];
  if (!feature) return false;
  if (read('server.js')?.includes(`./app/${MISSING_MODULE}`)) return false;
  for (const file of mealPlannerFeatureFiles(feature.sourceDir))
    if (read(file.path) === undefined) return false;
  for (const insertion of feature.insertions) {
    const text = read(insertion.path) ?? '';
    if (!insertion.lines.every((line) => text.includes(line.trim()))) return false;
  }
  const { path, find, replace } = feature.regression;
  const text = read(path) ?? '';
  // A regression that extends its text (`id` → `id DESC`) is told by the longer text.
  return text.includes(find) && !(replace.includes(find) && text.includes(replace));
}

/** The examples by name. */
export const OVERNIGHT_EXAMPLES: Record<OvernightExampleName, OvernightExample> = {
  todo: {
    name: 'todo',
    specPath: TODO_SPEC_PATH,
    maxFeatures: TODO_FEATURES.length,
    installs: false,
    works: featureWorks,
  },
  'meal-planner': {
    name: 'meal-planner',
    specPath: MEAL_PLANNER_SPEC_PATH,
    maxFeatures: MEAL_PLANNER_FEATURES.length,
    installs: true,
    works: mealPlannerFeatureWorks,
  },
};
