/**
 * The examples the overnight bench builds: the todo example (8 features, no dependencies to install) and the
 * meal planner (50 features with `depends_on`, SQLite through sql.js, accounts; `npm ci` of sql.js and dayjs in
 * every app start, from the loopback registry only). Each brings its spec, its size, and the judge of its final
 * code: which features really work, whatever the run claims.
 */
import { z } from 'zod';
import { MEAL_PLANNER_FEATURES } from '../testkit/policies/meal-planner/features.js';
import { MEAL_PLANNER_SPEC_PATH, mealPlannerFeatureFiles } from '../testkit/policies/meal-planner/sources.js';
import { TODO_DEPENDENCIES, TODO_FEATURES } from '../testkit/policies/todo-features.js';
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
  /** Each feature's `depends_on`, as 0-based positions of earlier features. */
  dependsOn: ReadonlyArray<readonly number[]>;
}

/**
 * Features on the longest `depends_on` chain among the first `count`: no number of lanes does the build in fewer
 * rounds of generator and evaluator than this.
 */
export function longestPath(dependsOn: ReadonlyArray<readonly number[]>, count: number): number {
  const depth: number[] = [];
  for (let index = 0; index < count; index++) {
    const before = (dependsOn[index] ?? []).filter((position) => position < index);
    depth.push(1 + Math.max(0, ...before.map((position) => depth[position] ?? 0)));
  }
  return Math.max(0, ...depth);
}

/**
 * Rounds of generator and evaluator `lanes` lanes need at best for the first `count` features, one feature a lane
 * a round, a feature only after its `depends_on` (greedy, longest remaining chain first: Hu's rule, optimal when
 * each feature has at most one dependant, a close estimate otherwise).
 */
export function roundsWithLanes(
  dependsOn: ReadonlyArray<readonly number[]>,
  count: number,
  lanes: number,
): number {
  const needs = Array.from({ length: count }, (_unused, index) =>
    (dependsOn[index] ?? []).filter((position) => position < index),
  );
  const height: number[] = new Array(count).fill(1);
  for (let index = count - 1; index >= 0; index--)
    for (const position of needs[index] ?? [])
      height[position] = Math.max(height[position] ?? 1, (height[index] ?? 1) + 1);
  const done = new Set<number>();
  let rounds = 0;
  while (done.size < count) {
    const ready = needs
      .map((before, index) => ({ index, before }))
      .filter(({ index, before }) => !done.has(index) && before.every((position) => done.has(position)))
      .sort((a, b) => (height[b.index] ?? 0) - (height[a.index] ?? 0))
      .slice(0, lanes);
    for (const { index } of ready) done.add(index);
    rounds += 1;
  }
  return rounds;
}

const MEAL_PLANNER_POSITIONS = new Map(MEAL_PLANNER_FEATURES.map((feature, index) => [feature.key, index]));

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
    // 1-based list positions in the todo catalogue.
    dependsOn: TODO_FEATURES.map((_feature, index) =>
      (TODO_DEPENDENCIES[index] ?? []).map((position) => position - 1),
    ),
  },
  'meal-planner': {
    name: 'meal-planner',
    specPath: MEAL_PLANNER_SPEC_PATH,
    maxFeatures: MEAL_PLANNER_FEATURES.length,
    installs: true,
    works: mealPlannerFeatureWorks,
    dependsOn: MEAL_PLANNER_FEATURES.map((feature) =>
      feature.dependsOn
        .map((key) => MEAL_PLANNER_POSITIONS.get(key) ?? -1)
        .filter((position) => position >= 0),
    ),
  },
};
