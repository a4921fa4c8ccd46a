/**
 * The meal-planner catalogue: every feature of examples/meal-planner/app_spec.md in build order, validated when the
 * module loads (unique keys, dependencies on earlier features only, one check step per feature step), and the
 * feature list the scripted initializer writes from it.
 */
import { z } from 'zod';
import { MealPlannerFeature, type MealPlannerFeatureInput } from './catalogue.js';
import { ACCOUNT_FEATURES } from './features-accounts.js';
import { BROWSING_FEATURES } from './features-browsing.js';
import { DASHBOARD_FEATURES } from './features-dashboard.js';
import { FINDING_FEATURES } from './features-finding.js';
import { PLAN_FEATURES } from './features-plan.js';
import { RECIPE_CHANGE_FEATURES } from './features-recipe-changes.js';
import { RECIPE_EXTRA_FEATURES } from './features-recipe-extras.js';
import { RECIPE_FEATURES } from './features-recipes.js';
import { SETTINGS_FEATURES } from './features-settings.js';
import { SHARING_FEATURES } from './features-sharing.js';
import { SHOPPING_FEATURES } from './features-shopping.js';

/** The catalogue is inconsistent; the message names the feature and what is wrong. */
export class CatalogueError extends Error {
  constructor(message: string) {
    super(`meal-planner catalogue: ${message}`);
    this.name = 'CatalogueError';
  }
}

function validate(inputs: readonly MealPlannerFeatureInput[]): MealPlannerFeature[] {
  const features = inputs.map((input, index) => {
    const parsed = MealPlannerFeature.safeParse(input);
    if (!parsed.success)
      throw new CatalogueError(`${input.key ?? `feature ${index + 1}`}: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  });
  const seen = new Set<string>();
  for (const feature of features) {
    if (seen.has(feature.key)) throw new CatalogueError(`the key "${feature.key}" is used twice`);
    for (const dependency of feature.dependsOn) {
      if (!seen.has(dependency)) {
        throw new CatalogueError(
          `${feature.key} depends on "${dependency}", which is not an earlier feature`,
        );
      }
    }
    if (feature.check.length !== feature.steps.length) {
      throw new CatalogueError(
        `${feature.key} has ${feature.steps.length} steps but ${feature.check.length} check steps`,
      );
    }
    seen.add(feature.key);
  }
  return features;
}

/** Every feature, in build order. */
export const MEAL_PLANNER_FEATURES: readonly MealPlannerFeature[] = validate([
  ...ACCOUNT_FEATURES,
  ...RECIPE_FEATURES,
  ...RECIPE_CHANGE_FEATURES,
  ...FINDING_FEATURES,
  ...BROWSING_FEATURES,
  ...SHARING_FEATURES,
  ...RECIPE_EXTRA_FEATURES,
  ...PLAN_FEATURES,
  ...SHOPPING_FEATURES,
  ...SETTINGS_FEATURES,
  ...DASHBOARD_FEATURES,
]);

/** The feature id a catalogue position gets (`F-001` for the first). */
export function mealPlannerFeatureId(index: number): string {
  return `F-${String(index + 1).padStart(3, '0')}`;
}

/** The feature with this key, or a CatalogueError. */
export function mealPlannerFeature(key: string): MealPlannerFeature {
  const feature = MEAL_PLANNER_FEATURES.find((candidate) => candidate.key === key);
  if (!feature) throw new CatalogueError(`no feature is called "${key}"`);
  return feature;
}

/** `feature_list.json` as the initializer writes it (the first `count` features): no ids, all failing. */
export function mealPlannerFeatureListJson(count = MEAL_PLANNER_FEATURES.length): string {
  const ids = new Map(
    MEAL_PLANNER_FEATURES.map((feature, index) => [feature.key, mealPlannerFeatureId(index)]),
  );
  const list = MEAL_PLANNER_FEATURES.slice(0, count).map((feature) => ({
    category: feature.category,
    description: feature.description,
    steps: feature.steps,
    ...(feature.dependsOn.length ? { depends_on: feature.dependsOn.map((key) => ids.get(key)) } : {}),
    passes: false,
  }));
  return `${JSON.stringify(list, null, 2)}\n`;
}
