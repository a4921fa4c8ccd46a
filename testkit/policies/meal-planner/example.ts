/**
 * The meal-planner as one of the scripted model's examples (testkit/policies/examples.ts): its catalogue seen as
 * scripted features (the browser check is named by the feature's key), its sources, the generator's shell check
 * (curl with a cookie jar, verify.ts) and the evaluator's data-driven browser check (check-runner.ts).
 */
import path from 'node:path';
import type { ScriptedExample } from '../examples.js';
import type { ScriptedFeature } from '../scripted-feature.js';
import { runMealPlannerCheck } from './check-runner.js';
import { MEAL_PLANNER_FEATURES, mealPlannerFeature, mealPlannerFeatureListJson } from './features.js';
import { MEAL_PLANNER_DIR } from './sources.js';
import { mealPlannerVerifyCommand } from './verify.js';

/** Every catalogue feature as the scripted roles know features; `check` is the catalogue key. */
export const MEAL_PLANNER_SCRIPTED_FEATURES: readonly ScriptedFeature[] = MEAL_PLANNER_FEATURES.map(
  (feature) => ({
    check: feature.key,
    category: feature.category,
    description: feature.description,
    steps: feature.steps,
    sourceDir: feature.sourceDir,
    insertions: feature.insertions,
    verify: feature.verify,
    summary: feature.summary,
  }),
);

/** Whether the text is the meal-planner spec (its title and its database library). */
export function isMealPlannerSpec(text: string): boolean {
  return /^# Meal planner/m.test(text) && /sql\.js/.test(text);
}

/** The meal-planner example (examples/meal-planner): accounts, recipes, a plan and a shopping list in SQLite. */
export const MEAL_PLANNER_EXAMPLE: ScriptedExample = {
  name: 'meal-planner',
  isSpec: isMealPlannerSpec,
  features: MEAL_PLANNER_SCRIPTED_FEATURES,
  sourcesDir: path.join(MEAL_PLANNER_DIR, 'scripted'),
  featureListJson: mealPlannerFeatureListJson,
  skeletonServes: `[ "$(page /)" = 200 ] || fail "the home page did not load"`,
  verifyCommand: mealPlannerVerifyCommand,
  checks: {},
  evaluate: (io, url, featureId, feature, tag) =>
    runMealPlannerCheck(io, url, featureId, mealPlannerFeature(feature.check), tag),
};
