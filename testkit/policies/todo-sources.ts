/**
 * The files the scripted roles write, read from examples/todo/scripted/: `skeleton/` is what the
 * initializer writes (plus the feature list), `features/<dir>/` what each generator adds. Kept as real
 * files so the app's code is linted and readable like any other code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of `examples/todo/scripted`. */
export const SCRIPTED_SOURCES_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../examples/todo/scripted',
);

/** Absolute path of the example spec, `examples/todo/app_spec.md`. */
export const TODO_SPEC_PATH = path.resolve(SCRIPTED_SOURCES_DIR, '../app_spec.md');

/** A file to write: workspace-relative path and content. */
export interface SourceFile {
  path: string;
  content: string;
}

/** Files stored under another name because a real dotfile would act on this repository (e.g. `.gitignore`). */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };

function filesUnder(root: string, relative = ''): SourceFile[] {
  const dir = path.join(root, relative);
  const files: SourceFile[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const child = path.posix.join(relative, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(root, child));
    else files.push({ path: RENAMED[child] ?? child, content: readFileSync(path.join(root, child), 'utf8') });
  }
  return files;
}

/** The skeleton app the initializer writes (server, client core, init.sh, .gitignore, progress.md, …). */
export function skeletonFiles(sourcesDir = SCRIPTED_SOURCES_DIR): SourceFile[] {
  return filesUnder(path.join(sourcesDir, 'skeleton'));
}

/** The new files of one feature (`sourceDir` of a catalogue feature) of an example (default: the todo one). */
export function featureFiles(sourceDir: string, sourcesDir = SCRIPTED_SOURCES_DIR): SourceFile[] {
  return filesUnder(path.join(sourcesDir, 'features', sourceDir));
}
