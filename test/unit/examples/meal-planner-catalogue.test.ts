// The meal-planner catalogue agrees with its sources and its spec: every feature's insertions find their markers in
// build order, every regression applies exactly once (when the feature is built and on the finished app), every
// shell verify parses, the feature list's ids and depends_on are consistent, and the spec lists the same features.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockedPackages } from '../../../testkit/app-registry.js';
import { mealPlannerAppFiles } from '../../../testkit/policies/meal-planner/assemble.js';
import { interpolate } from '../../../testkit/policies/meal-planner/check-format.js';
import {
  MEAL_PLANNER_FEATURES,
  mealPlannerFeatureId,
  mealPlannerFeatureListJson,
} from '../../../testkit/policies/meal-planner/features.js';
import {
  MEAL_PLANNER_DIR,
  MEAL_PLANNER_LOCKFILE,
  MEAL_PLANNER_SPEC_PATH,
} from '../../../testkit/policies/meal-planner/sources.js';
import { mealPlannerVerifyCommand } from '../../../testkit/policies/meal-planner/verify.js';

describe('the meal-planner catalogue', () => {
  it('has 50 to 60 features whose feature list carries ids in order and depends_on on earlier ids only', () => {
    expect(MEAL_PLANNER_FEATURES.length).toBeGreaterThanOrEqual(50);
    expect(MEAL_PLANNER_FEATURES.length).toBeLessThanOrEqual(60);
    const list = JSON.parse(mealPlannerFeatureListJson()) as Array<{
      depends_on?: string[];
      passes: boolean;
    }>;
    expect(list).toHaveLength(MEAL_PLANNER_FEATURES.length);
    list.forEach((entry, index) => {
      expect(entry.passes).toBe(false);
      for (const dependency of entry.depends_on ?? [])
        expect(dependency < mealPlannerFeatureId(index)).toBe(true);
    });
    expect(list.filter((entry) => entry.depends_on?.length).length).toBe(list.length - 1);
  });

  it('registers features in the shared route table and nav menu, one line each, in build order', () => {
    const files = mealPlannerAppFiles();
    const routeLines = (files.get('app/routes.js') ?? '').split('\n').filter((line) => /^\s+\['/.test(line));
    const expected = MEAL_PLANNER_FEATURES.flatMap((feature) =>
      feature.insertions
        .filter((insertion) => insertion.path === 'app/routes.js')
        .flatMap((insertion) => insertion.lines),
    );
    expect(routeLines.map((line) => line.trim())).toEqual(["['/', 'home'],", ...expected]);
    const registered = MEAL_PLANNER_FEATURES.filter((feature) =>
      feature.insertions.some((insertion) => insertion.path === 'app/routes.js'),
    );
    expect(registered.length / MEAL_PLANNER_FEATURES.length).toBeGreaterThanOrEqual(0.8);
    const navLines = (files.get('app/nav.js') ?? '').split('\n').filter((line) => line.includes('href:'));
    const pages = MEAL_PLANNER_FEATURES.flatMap((feature) =>
      feature.insertions.filter((insertion) => insertion.path === 'app/nav.js'),
    );
    expect(navLines).toHaveLength(1 + pages.length);
    expect(pages.length).toBeGreaterThanOrEqual(12);
  });

  it('plants each regression exactly once, on the app as its feature leaves it and on the finished app', () => {
    MEAL_PLANNER_FEATURES.forEach((feature, index) => {
      const clean = mealPlannerAppFiles({ upTo: index + 1 });
      const broken = mealPlannerAppFiles({ upTo: index + 1, bug: feature.key });
      expect(broken.get(feature.regression.path), feature.key).not.toBe(clean.get(feature.regression.path));
      expect(() => mealPlannerAppFiles({ bug: feature.key }), feature.key).not.toThrow();
    });
    expect(() => mealPlannerAppFiles({ upTo: 3, bug: 'dashboard' })).toThrow(
      /no built feature is called "dashboard"/,
    );
  });

  it('gives every feature a shell verify that bash can parse', () => {
    for (const feature of MEAL_PLANNER_FEATURES) {
      const script = mealPlannerVerifyCommand(feature.verify, `${feature.key} checks passed`);
      expect(() => execFileSync('bash', ['-n', '-c', script]), feature.key).not.toThrow();
    }
  });

  it('lists the same features, in the same order, in the spec', () => {
    const spec = readFileSync(MEAL_PLANNER_SPEC_PATH, 'utf8');
    const numbered = [...spec.matchAll(/^(\d+)\. \*\*(.+?)\.\*\*/gm)];
    expect(numbered.map((match) => Number(match[1]))).toEqual(
      MEAL_PLANNER_FEATURES.map((_, index) => index + 1),
    );
    numbered.forEach((match, index) => {
      expect(match[2]?.toLowerCase().replace(/ /g, '-')).toBe(MEAL_PLANNER_FEATURES[index]?.key);
    });
  });

  it('pins the app dependencies exactly, and the lockfile holds just those', () => {
    const pkg = JSON.parse(
      readFileSync(path.join(MEAL_PLANNER_DIR, 'scripted/skeleton/package.json'), 'utf8'),
    );
    expect(pkg.dependencies).toEqual({ dayjs: '1.11.23', 'sql.js': '1.17.0' });
    expect(lockedPackages(MEAL_PLANNER_LOCKFILE).map((entry) => `${entry.name}@${entry.version}`)).toEqual([
      'dayjs@1.11.23',
      'sql.js@1.17.0',
    ]);
  });

  it('fills the placeholders of a check per session, and refuses unknown ones', () => {
    const paths = new Map([['recipe', '/recipes/4']]);
    expect(
      interpolate('{name:cook} <{email:cook}> {password:cook} {tag} {path:recipe}', 'k3f9a', paths),
    ).toBe('Cook k3f9a <cook.k3f9a@example.test> pass-cook-k3f9a k3f9a /recipes/4');
    expect(() => interpolate('{path:other}', 'k3f9a', paths)).toThrow(/before remembering/);
    expect(() => interpolate('{nope}', 'k3f9a', paths)).toThrow(/unknown placeholder \{nope\}/);
  });
});
