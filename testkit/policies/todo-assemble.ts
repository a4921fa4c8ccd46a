/**
 * Builds the finished todo example app directly from the scripted sources, without any model session:
 * the same files and marker insertions the scripted initializer and generators produce. For tests and
 * benchmarks that need a built app (e.g. the evaluator against the app with and without the planted bug).
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { insertionEdit } from './generator.js';
import { featureListJson, TODO_FEATURES } from './todo-features.js';
import { featureFiles, skeletonFiles } from './todo-sources.js';

/** Options of {@link assembleTodoApp}. */
export interface AssembleOptions {
  /** Keep the planted bug of the remaining count (default false: the fixed app). */
  plantedBug?: boolean;
  /** How many features to build, in list order (default all). */
  features?: number;
}

/** Writes the app (and `feature_list.json` without ids) into `dir`; returns the workspace-relative paths written. */
export async function assembleTodoApp(dir: string, options: AssembleOptions = {}): Promise<string[]> {
  const files = new Map<string, string>([['feature_list.json', featureListJson()]]);
  for (const file of skeletonFiles()) files.set(file.path, file.content);
  for (const feature of TODO_FEATURES.slice(0, options.features ?? TODO_FEATURES.length)) {
    for (const file of featureFiles(feature.sourceDir)) files.set(file.path, file.content);
    for (const insertion of feature.insertions) {
      const edit = insertionEdit(insertion, files.get(insertion.path) ?? '');
      if (!edit) throw new Error(`marker "${insertion.marker}" missing in ${insertion.path}`);
      files.set(
        insertion.path,
        (files.get(insertion.path) as string).replace(edit.old_string, edit.new_string),
      );
    }
    const bug = feature.plantedBug;
    if (bug && !options.plantedBug) {
      files.set(bug.path, (files.get(bug.path) ?? '').replace(bug.buggy, bug.fixed));
    }
  }
  for (const [relative, content] of files) {
    const target = path.join(dir, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  await chmod(path.join(dir, 'init.sh'), 0o755);
  return [...files.keys()];
}
