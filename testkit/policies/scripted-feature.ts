/**
 * What the scripted roles know of one feature of an example app (the todo example's types and its module
 * registries): the shapes `todo-features.ts` and the other examples' catalogues fill in.
 */

/** Which browser check of `evaluator-checks.ts` verifies a feature. */
export type TodoCheckKey =
  | 'add'
  | 'persist'
  | 'complete'
  | 'delete'
  | 'remaining'
  | 'filter'
  | 'edit'
  | 'clearCompleted';

/** Text inserted into an existing file just above the line holding `marker` (with that line's indentation). */
export interface MarkerInsertion {
  path: string;
  marker: string;
  /** Lines to insert, without indentation (the marker line's is added). */
  lines: string[];
}

/** A bug the first implementation carries on purpose, and the fix applied after evaluator feedback. */
export interface PlantedBug {
  path: string;
  buggy: string;
  fixed: string;
  /** What the fix changes, for the commit message and the progress note. */
  explanation: string;
}

/** One feature of an example app, as the scripted roles know it. */
export interface ScriptedFeature {
  /** Which browser check of the example's evaluator verifies it. */
  check: string;
  category: string;
  description: string;
  steps: string[];
  /** Folder under `examples/todo/scripted/features/` whose files the generator writes. */
  sourceDir: string;
  /** Lines the generator inserts into existing files (module registrations and the like). */
  insertions: MarkerInsertion[];
  /** Shell checks run against the started app (see `verifyCommand`); `$base` is the app URL. */
  verify: string;
  /** Commit subject after the feature id. */
  summary: string;
  plantedBug?: PlantedBug;
}

/** One feature of the todo example. */
export interface TodoFeature extends ScriptedFeature {
  check: TodoCheckKey;
}

/** The server's module registry: feature modules are imported here. */
export const API_MODULES = 'api/modules.js';
/** The page's module registry. */
export const CLIENT_MODULES = 'public/features.js';
/** The line both registries insert imports above. */
export const MODULE_MARKER = '// -- feature modules: add imports above this line --';

/** Registers a server module of a feature (`api/modules.js`, above its marker). */
export function registerApi(module: string): MarkerInsertion {
  return { path: API_MODULES, marker: MODULE_MARKER, lines: [`import './${module}';`] };
}

/** Registers a client module of a feature (`public/features.js`, above its marker). */
export function registerClient(module: string): MarkerInsertion {
  return { path: CLIENT_MODULES, marker: MODULE_MARKER, lines: [`import './features/${module}';`] };
}

/** A shell check that the client module is served and holds a text. */
export function served(module: string, mustContain: string): string {
  return `curl -sf "$base/features/${module}" | grep -q '${mustContain}' || fail "public/features/${module} is not served"`;
}
