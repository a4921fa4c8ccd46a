/**
 * Builds the meal-planner app directly from the scripted sources, without any model session: the skeleton, then
 * each feature's files and marker insertions in list order, as the scripted initializer and generators would write
 * them. For tests and benchmarks that need a built app, with one feature's regression planted when asked.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { insertionEdit } from '../generator.js';
import type { MealPlannerFeature } from './catalogue.js';
import { MEAL_PLANNER_FEATURES, mealPlannerFeatureListJson } from './features.js';
import { mealPlannerFeatureFiles, mealPlannerSkeletonFiles } from './sources.js';

/** Options of {@link assembleMealPlannerApp}. */
export interface AssembleMealPlannerOptions {
  /** Build the first `upTo` features, in list order (default all). */
  upTo?: number;
  /** Key of a built feature whose regression is planted (it passed, then a later change broke it). */
  bug?: string;
}

/** A marker or a regression's text is missing: the catalogue and the sources disagree. */
export class CatalogueMismatchError extends Error {
  constructor(message: string) {
    super(`${message} (fix the meal-planner catalogue or the sources under examples/meal-planner/scripted)`);
    this.name = 'CatalogueMismatchError';
  }
}

/** Applies one feature's files and insertions to the file map. */
export function applyFeature(files: Map<string, string>, feature: MealPlannerFeature): void {
  for (const file of mealPlannerFeatureFiles(feature.sourceDir)) files.set(file.path, file.content);
  for (const insertion of feature.insertions) {
    const text = files.get(insertion.path) ?? '';
    const edit = insertionEdit(insertion, text);
    if (!edit)
      throw new CatalogueMismatchError(
        `${feature.key}: marker "${insertion.marker}" missing in ${insertion.path}`,
      );
    files.set(insertion.path, text.replace(edit.old_string, edit.new_string));
  }
}

/** Plants a feature's regression; the text it replaces must occur exactly once. */
export function plantRegression(files: Map<string, string>, feature: MealPlannerFeature): void {
  const { path: file, find, replace } = feature.regression;
  const text = files.get(file) ?? '';
  const count = text.split(find).length - 1;
  if (count !== 1) {
    throw new CatalogueMismatchError(
      `${feature.key}: its regression's text occurs ${count} times in ${file}, not once`,
    );
  }
  files.set(file, text.replace(find, replace));
}

/** The app's files (workspace-relative path → content) with the first `upTo` features. */
export function mealPlannerAppFiles(options: AssembleMealPlannerOptions = {}): Map<string, string> {
  const built = MEAL_PLANNER_FEATURES.slice(0, options.upTo ?? MEAL_PLANNER_FEATURES.length);
  const files = new Map<string, string>([['feature_list.json', mealPlannerFeatureListJson()]]);
  for (const file of mealPlannerSkeletonFiles()) files.set(file.path, file.content);
  for (const feature of built) applyFeature(files, feature);
  if (options.bug !== undefined) {
    const broken = built.find((feature) => feature.key === options.bug);
    if (!broken) throw new CatalogueMismatchError(`no built feature is called "${options.bug}"`);
    plantRegression(files, broken);
  }
  return files;
}

/** Writes the app (and `feature_list.json` without ids) into `dir`; returns the workspace-relative paths written. */
export async function assembleMealPlannerApp(
  dir: string,
  options: AssembleMealPlannerOptions = {},
): Promise<string[]> {
  const files = mealPlannerAppFiles(options);
  for (const [relative, content] of files) {
    const target = path.join(dir, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  await chmod(path.join(dir, 'init.sh'), 0o755);
  return [...files.keys()];
}
