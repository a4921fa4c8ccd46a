/**
 * Where a generator's mistakes land in each example's code (generator-mistakes.ts plays them): the line a broken
 * start adds and where, which registration a half-done feature leaves out, and the edit a regression makes to an
 * earlier feature the current one does not need. The todo example's registries (api/modules.js,
 * public/features.js) and the meal planner's (server.js, app/routes.js, app/nav.js, with each catalogue feature's own
 * planted regression: testkit/policies/meal-planner/catalogue.ts) differ; everything else about a mistake does not.
 */
import { MEAL_PLANNER_FEATURES } from '../policies/meal-planner/features.js';
import type { ScriptedFeature } from '../policies/scripted-feature.js';
import {
  API_MODULES,
  CLIENT_MODULES,
  isTodoFeature,
  MODULE_MARKER,
  TODO_DEPENDENCIES,
  TODO_FEATURES,
} from '../policies/todo-features.js';
import type { ScriptedToolCall } from '../types.js';

/** The module a generator that breaks the start imports without writing it. */
export const MISSING_MODULE = 'validation.js';

/** `edit` arguments. */
export interface EditArgs {
  path: string;
  old_string: string;
  new_string: string;
}

/** Where one example's mistakes land. */
export interface MistakeTargets {
  /** The file a broken start edits, the line it adds there, and the text that line goes above. */
  brokenStart: { path: string; line: string; anchor: string };
  /** The edit a regression makes while the session edits anything (undefined: no earlier feature to break). */
  regression: EditArgs | undefined;
  /** Whether a regression shows in the turn making these calls (it rides along an edit of the session's own). */
  isRegressionTurn(calls: readonly ScriptedToolCall[]): boolean;
  /** Whether the call is the registration a half-done feature leaves out. */
  isHalfDoneTarget(call: ScriptedToolCall, calls: readonly ScriptedToolCall[]): boolean;
}

const editPath = (call: ScriptedToolCall) =>
  call.name === 'edit' && typeof call.arguments !== 'string' ? String(call.arguments.path) : undefined;

/** The edit that removes a line (and its newline) from a file. */
function removeLine(path: string, line: string): EditArgs {
  return { path, old_string: `${line}\n`, new_string: '' };
}

/**
 * The client registration line of the latest earlier todo feature the given one does not depend on: what a
 * regression drops (undefined for the first features, which everything later needs, and outside the todo example).
 */
export function regressionTarget(feature: ScriptedFeature): string | undefined {
  const position = TODO_FEATURES.indexOf(feature as (typeof TODO_FEATURES)[number]);
  if (position < 0) return undefined;
  const needed = new Set(TODO_DEPENDENCIES[position] ?? []);
  for (let earlier = position - 1; earlier >= 0; earlier -= 1) {
    if (needed.has(earlier + 1)) continue;
    const registration = TODO_FEATURES[earlier]?.insertions.find(
      (insertion) => insertion.path === CLIENT_MODULES,
    );
    if (registration) return registration.lines[0];
  }
  return undefined;
}

/** The todo example: a page module left unregistered in public/features.js, a bad import in api/modules.js. */
function todoTargets(feature: ScriptedFeature): MistakeTargets {
  const dropped = regressionTarget(feature);
  return {
    brokenStart: { path: API_MODULES, line: `import './${MISSING_MODULE}';`, anchor: MODULE_MARKER },
    regression: dropped === undefined ? undefined : removeLine(CLIENT_MODULES, dropped),
    isRegressionTurn: (calls) => calls.some((call) => editPath(call) === CLIENT_MODULES),
    isHalfDoneTarget: (call) => editPath(call) === CLIENT_MODULES,
  };
}

/** Keys of every feature `key` needs, directly or through others. */
function neededBy(key: string): Set<string> {
  const needed = new Set<string>();
  const pending = [key];
  while (pending.length > 0) {
    const next = pending.pop();
    const feature = MEAL_PLANNER_FEATURES.find((candidate) => candidate.key === next);
    for (const dependency of feature?.dependsOn ?? []) {
      if (!needed.has(dependency)) pending.push(dependency);
      needed.add(dependency);
    }
  }
  return needed;
}

/** The server's import the broken start goes above: present in the skeleton, never edited by a feature. */
const MEAL_PLANNER_ANCHOR = "import { createRouter } from './app/router.js';";

/**
 * The meal planner: a bad import in server.js; a half-done feature leaves out its menu entry (app/nav.js; its route
 * when it has none), which curl checks do not click; a regression plants the catalogue's own regression of the
 * latest earlier feature the current one does not need (directly or through others).
 */
function mealPlannerTargets(feature: ScriptedFeature): MistakeTargets {
  const position = MEAL_PLANNER_FEATURES.findIndex((candidate) => candidate.key === feature.check);
  const needed = neededBy(feature.check);
  const broken = MEAL_PLANNER_FEATURES.slice(0, Math.max(0, position))
    .reverse()
    .find((earlier) => !needed.has(earlier.key));
  return {
    brokenStart: {
      path: 'server.js',
      line: `import './app/${MISSING_MODULE}';`,
      anchor: MEAL_PLANNER_ANCHOR,
    },
    regression: broken
      ? {
          path: broken.regression.path,
          old_string: broken.regression.find,
          new_string: broken.regression.replace,
        }
      : undefined,
    isRegressionTurn: (calls) => calls.some((call) => editPath(call) !== undefined),
    isHalfDoneTarget: (call, calls) => {
      const hasNav = calls.some((other) => editPath(other) === 'app/nav.js');
      return editPath(call) === (hasNav ? 'app/nav.js' : 'app/routes.js');
    },
  };
}

/** Where the feature's example takes a generator's mistakes; undefined for an example without targets. */
export function mistakeTargets(feature: ScriptedFeature): MistakeTargets | undefined {
  if (isTodoFeature(feature)) return todoTargets(feature);
  if (MEAL_PLANNER_FEATURES.some((candidate) => candidate.key === feature.check))
    return mealPlannerTargets(feature);
  return undefined;
}
