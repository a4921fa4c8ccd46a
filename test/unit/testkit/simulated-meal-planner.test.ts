// The simulated model's mistakes on the meal planner (testkit/simulated/mistake-targets.ts) land on the real
// sources, and the overnight bench's judge of the final code (bench/overnight-examples.ts) sees each of them on the
// feature it breaks and on no other: the catalogue app assembled in memory, each mistake's edit applied to it.
import { describe, expect, it } from 'vitest';
import { mealPlannerFeatureWorks } from '../../../bench/overnight-examples.js';
import { mealPlannerAppFiles } from '../../../testkit/policies/meal-planner/assemble.js';
import { MEAL_PLANNER_SCRIPTED_FEATURES } from '../../../testkit/policies/meal-planner/example.js';
import { MEAL_PLANNER_FEATURES } from '../../../testkit/policies/meal-planner/features.js';
import { type EditArgs, mistakeTargets } from '../../../testkit/simulated/mistake-targets.js';

const reader = (files: Map<string, string>) => (file: string) => files.get(file);
const broken = (files: Map<string, string>) =>
  MEAL_PLANNER_FEATURES.flatMap((_feature, index) =>
    mealPlannerFeatureWorks(reader(files), index) ? [] : [index],
  );

function applied(files: Map<string, string>, edit: EditArgs): Map<string, string> {
  const text = files.get(edit.path) ?? '';
  expect(text.split(edit.old_string).length - 1, `${edit.path} holds the edited text once`).toBe(1);
  return new Map(files).set(edit.path, text.replace(edit.old_string, edit.new_string));
}

describe('the meal planner under the simulated model', () => {
  it('judges every feature of the finished app working, and a prefix working only up to its end', () => {
    expect(broken(mealPlannerAppFiles())).toEqual([]);
    expect(broken(mealPlannerAppFiles({ upTo: 12 }))).toEqual(
      MEAL_PLANNER_FEATURES.map((_feature, index) => index).filter((index) => index >= 12),
    );
  });

  it("plants a regression only in an earlier feature the session's feature does not need, and only that one breaks", () => {
    const full = mealPlannerAppFiles();
    const targets = MEAL_PLANNER_SCRIPTED_FEATURES.map((feature) => mistakeTargets(feature));
    // The first feature has nothing before it; the second needs the first.
    expect(targets.slice(0, 2).map((target) => target?.regression)).toEqual([undefined, undefined]);
    for (const [position, target] of targets.entries()) {
      if (!target?.regression) continue;
      const [hit] = broken(applied(full, target.regression)).map((index) => MEAL_PLANNER_FEATURES[index]);
      expect(hit && hit.key !== MEAL_PLANNER_FEATURES[position]?.key).toBe(true);
      expect(MEAL_PLANNER_FEATURES[position]?.dependsOn).not.toContain(hit?.key);
    }
  });

  it('breaks the start in server.js so every feature stops working, and the repair is the same line taken out', () => {
    const full = mealPlannerAppFiles();
    const start = mistakeTargets(
      MEAL_PLANNER_SCRIPTED_FEATURES[4] as (typeof MEAL_PLANNER_SCRIPTED_FEATURES)[number],
    )?.brokenStart;
    if (!start) throw new Error('no broken start for the meal planner');
    const withBadImport = applied(full, {
      path: start.path,
      old_string: start.anchor,
      new_string: `${start.line}\n${start.anchor}`,
    });
    expect(broken(withBadImport)).toHaveLength(MEAL_PLANNER_FEATURES.length);
    const repaired = applied(withBadImport, {
      path: start.path,
      old_string: `${start.line}\n`,
      new_string: '',
    });
    expect(broken(repaired)).toEqual([]);
  });

  it('leaves out the menu entry of a half-done feature (its route when it has none)', () => {
    const edits = (paths: string[]) => paths.map((path) => ({ name: 'edit', arguments: { path } }));
    const signUp = mistakeTargets(
      MEAL_PLANNER_SCRIPTED_FEATURES[0] as (typeof MEAL_PLANNER_SCRIPTED_FEATURES)[number],
    );
    const calls = edits(['app/schema.js', 'app/routes.js', 'app/nav.js']);
    expect(calls.map((call) => signUp?.isHalfDoneTarget(call, calls))).toEqual([false, false, true]);
    const routeOnly = edits(['app/routes.js', 'app/features/recipe-page.js']);
    expect(routeOnly.map((call) => signUp?.isHalfDoneTarget(call, routeOnly))).toEqual([true, false]);
  });
});
