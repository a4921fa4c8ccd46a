import { describe, expect, it } from 'vitest';
import {
  dependencyWidth,
  estimateLanes,
  formatLanesNotice,
  longestChain,
} from '../../../orchestrator/lanes/lanes-payoff.js';
import type { FeatureState } from '../../../orchestrator/run/index.js';
import { featureState } from '../orchestrator/fixtures.js';

const id = (n: number) => `F-${String(n).padStart(3, '0')}`;
/** Features 1…n, each depending on the positions listed for it (1-based). */
const list = (dependencies: ReadonlyArray<readonly number[]>): FeatureState[] =>
  dependencies.map((needs, index) =>
    featureState(index + 1, needs.length ? { depends_on: needs.map(id) } : {}),
  );
/** The todo example's eight features, with the dependencies its initializer declares (testkit/policies). */
const TODO = list([[], [1], [1, 2], [1, 2], [1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3]]);
const independent = (count: number) => list(Array.from({ length: count }, () => []));

describe('the dependency graph', () => {
  it('has a width (most features in flight at once) and a longest chain', () => {
    expect(dependencyWidth(TODO)).toBe(5);
    expect(longestChain(TODO)).toEqual(['F-001', 'F-002', 'F-003', 'F-005']);
    expect(dependencyWidth(independent(6))).toBe(6);
    expect(longestChain(independent(3))).toHaveLength(1);
    expect(dependencyWidth(TODO.slice(0, 3))).toBe(1);
    // Two chains side by side: 1 → 2 → 3 and 4 → 5. Width 2, not the three roots and leaves counted apart.
    expect(dependencyWidth(list([[], [1], [2], [], [4]]))).toBe(2);
    expect(dependencyWidth([])).toBe(0);
  });
});

describe('the lanes model', () => {
  it('says lanes do not pay on the 8-feature example: slower than one lane, and dearer', () => {
    const estimate = estimateLanes(TODO, 3);
    expect(estimate).toMatchObject({
      lanes: 3,
      features: 8,
      width: 5,
      conflicts: 4,
      timeFactor: 1.14,
      costFactor: 1.5,
      paysOff: false,
    });
    expect(formatLanesNotice(estimate)).toBe(
      '--lanes 3 is unlikely to pay for itself here: 8 feature(s) to build; a depends_on chain of 4 goes one after another (F-001 → F-002 → F-003 → F-005). ' +
        'Expected (the lanes model, docs/lanes.md): about 1.1× the time of one lane (no faster) at 1.5× the cost, with about 4 merge conflict(s). ' +
        'Measured on the 8-feature example: 3 lanes took 2 m 51 s and $0.83, one lane 1 m 30 s and $0.56. ' +
        'The run goes on as asked; --lanes 1 (the default) builds one feature at a time.',
    );
  });

  it('says so when a chain leaves lanes idle, and counts only the features still to build', () => {
    const chained = estimateLanes(TODO.slice(0, 3), 2);
    expect(chained).toMatchObject({
      width: 1,
      chain: ['F-001', 'F-002', 'F-003'],
      conflicts: 0,
      paysOff: false,
    });
    expect(formatLanesNotice(chained)).toContain('at most 1 can ever be in flight at once');
    // With F-001 to F-003 passing, the five left can go side by side.
    const rest = TODO.map((feature, index) => (index < 3 ? { ...feature, passes: true } : feature));
    expect(estimateLanes(rest, 2)).toMatchObject({ features: 5, width: 5, chain: ['F-004'] });
  });

  it('lets lanes pay on many independent features (the bench: 24 features, 2.49× at 4 lanes)', () => {
    expect(estimateLanes(independent(24), 4)).toMatchObject({ paysOff: true, costFactor: 1.25 });
    expect(estimateLanes(independent(24), 2).paysOff).toBe(true);
    expect(estimateLanes(independent(24), 4).timeFactor).toBeLessThan(0.8);
    // One lane per feature and more: conflicts eat the gain.
    expect(estimateLanes(independent(24), 8).paysOff).toBe(false);
  });
});
