/**
 * The files the scripted roles write for the meal-planner example, read from examples/meal-planner/scripted/:
 * `skeleton/` is what the initializer writes (plus the feature list), `features/<dir>/` what each generator adds.
 * Kept as real files so the app's code is linted and readable like any other code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourceFile } from '../todo-sources.js';

/** Absolute path of `examples/meal-planner`. */
export const MEAL_PLANNER_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../examples/meal-planner',
);

/** Absolute path of the example spec. */
export const MEAL_PLANNER_SPEC_PATH = path.join(MEAL_PLANNER_DIR, 'app_spec.md');

/** Absolute path of the app's lockfile: exactly the dependency tree the package cache must hold. */
export const MEAL_PLANNER_LOCKFILE = path.join(MEAL_PLANNER_DIR, 'scripted/skeleton/package-lock.json');

/** Files stored under another name because a real dotfile would act on this repository. */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };

/** Every file under `root`, sorted, with workspace-relative paths. */
export function filesUnder(root: string, relative = ''): SourceFile[] {
  const files: SourceFile[] = [];
  const entries = readdirSync(path.join(root, relative), { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const child = path.posix.join(relative, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(root, child));
    else files.push({ path: RENAMED[child] ?? child, content: readFileSync(path.join(root, child), 'utf8') });
  }
  return files;
}

/** The skeleton app the initializer writes (server, router, layout, database, init.sh, lockfile, …). */
export function mealPlannerSkeletonFiles(): SourceFile[] {
  return filesUnder(path.join(MEAL_PLANNER_DIR, 'scripted/skeleton'));
}

/** The new files of one feature (`sourceDir` of a catalogue feature). */
export function mealPlannerFeatureFiles(sourceDir: string): SourceFile[] {
  return filesUnder(path.join(MEAL_PLANNER_DIR, 'scripted/features', sourceDir));
}
