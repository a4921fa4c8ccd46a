import { describe, expect, it } from 'vitest';
import { validateInitialFeatureList } from '../../../handoff/feature-list.js';
import { blockedDependencies } from '../../../orchestrator/dependencies.js';
import { longestChain } from '../../../orchestrator/lanes/lanes-payoff.js';
import { applySessionResult } from '../../../orchestrator/run/apply-result.js';
import { emptySession } from '../../../orchestrator/run/run-state.js';
import { nextAction } from '../../../orchestrator/scheduler.js';
import { feature, featureState, makeState, result, T0, verdict } from './fixtures.js';

describe('features with depends_on', () => {
  it('does not start a feature whose dependency is blocked, and finishes when nothing else is open', () => {
    const state = makeState([
      featureState(1, { blocked: true, blockedReason: 'failed 3 evaluations' }),
      featureState(2, { depends_on: ['F-001'] }),
      featureState(3, { depends_on: ['F-002'] }),
    ]);
    expect(nextAction(state, T0)).toEqual({ kind: 'finish' });
    const withOther = makeState([...state.features, featureState(4)]);
    expect(nextAction(withOther, T0)).toEqual({ kind: 'generate', featureId: 'F-004' });
  });

  it('works on a dependency listed later before the feature that needs it', () => {
    const state = makeState([featureState(1, { depends_on: ['F-002'] }), featureState(2)]);
    expect(nextAction(state, T0)).toEqual({ kind: 'generate', featureId: 'F-002' });
    const done = makeState([featureState(1, { depends_on: ['F-002'] }), featureState(2, { passes: true })]);
    expect(nextAction(done, T0)).toEqual({ kind: 'generate', featureId: 'F-001' });
  });

  it('blocks the features waiting on a feature when it is blocked, saying which dependency holds them', () => {
    const state = makeState(
      [
        featureState(1),
        featureState(2, { depends_on: ['F-001'] }),
        featureState(3, { depends_on: ['F-002'] }),
      ],
      { config: { budgets: { maxAttemptsPerFeature: 1 } } },
    );
    const out = applySessionResult({
      ...state,
      session: {
        ...emptySession(5, 'r-test-5', 'evaluator', T0.toISOString()),
        featureIds: ['F-001'],
        workerId: 'w',
      },
      result: result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'fail', 5)] }),
      now: T0.toISOString(),
    });
    expect(out.features.map((f) => [f.id, f.blocked, f.blockedReason])).toEqual([
      ['F-001', true, 'failed 1 evaluations; last issues: button does nothing'],
      [
        'F-002',
        true,
        'waits on F-001, which is blocked: failed 1 evaluations; last issues: button does nothing',
      ],
      ['F-003', true, expect.stringMatching(/^waits on F-002, which is blocked: waits on F-001/)],
    ]);
    const blocked = out.events.filter((event) => event.type === 'feature.blocked');
    expect(blocked.map((event) => event.type === 'feature.blocked' && event.featureId)).toEqual([
      'F-001',
      'F-002',
      'F-003',
    ]);
    expect(out.changed.map((f) => f.id).sort()).toEqual(['F-001', 'F-002', 'F-003']);
  });

  it('accepts depends_on in feature_list.json and names unknown ids, self references and cycles', () => {
    const ok = validateInitialFeatureList(
      [feature(1), { ...feature(2), depends_on: ['F-001'] }].map(({ id, ...rest }) => rest),
    );
    expect(ok.ok && ok.list[1]?.depends_on).toEqual(['F-001']);
    const bad = validateInitialFeatureList([
      { ...feature(1), depends_on: ['F-009'] },
      { ...feature(2), depends_on: ['F-002', 'F-003'] },
      { ...feature(3), depends_on: ['F-002'] },
    ]);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error.split('\n')).toEqual([
      'feature_list.json: [0].depends_on: F-009 is not a feature id of this list',
      'feature_list.json: [1].depends_on: F-002 is the feature itself',
      'feature_list.json: depends_on: a cycle F-002 → F-003 → F-002; remove one of these dependencies',
    ]);
  });

  it('finds every feature held by a blocked dependency, the first in depends_on order, through chains and diamonds', () => {
    const features = [
      featureState(1, { blocked: true, blockedReason: 'failed 3 evaluations' }),
      featureState(2),
      featureState(3, { depends_on: ['F-002', 'F-001'] }),
      featureState(4, { depends_on: ['F-003'] }),
      featureState(5, { depends_on: ['F-002'] }),
      featureState(6, { blocked: true, blockedReason: 'asked to' }),
      featureState(7, { depends_on: ['F-006', 'F-004'] }),
    ];
    const held = blockedDependencies(features);
    expect([...held].map(([id, by]) => [id, by.id])).toEqual([
      ['F-003', 'F-001'],
      ['F-004', 'F-001'],
      ['F-007', 'F-006'],
    ]);
  });

  it("walks a long chain once: each feature's depends_on is read a bounded number of times, not once per later feature", () => {
    // A 3,000-feature chain (F-n waits on F-n-1) whose first feature is blocked. Walking from every feature
    // separately reads depends_on about n²/2 times (4.5 million here); the scheduler calls this on every advance.
    const reads = { count: 0 };
    const chain = Array.from({ length: 3_000 }, (_, index) => {
      const own = index === 0 ? [] : [`F-${String(index).padStart(3, '0')}`];
      const state = featureState(index + 1, index === 0 ? { blocked: true, blockedReason: 'stuck' } : {});
      return Object.defineProperty(state, 'depends_on', {
        enumerable: true,
        get: () => {
          reads.count++;
          return own;
        },
      });
    });
    const held = blockedDependencies(chain);
    expect(held.size).toBe(2_999);
    expect(held.get('F-3000')?.id).toBe('F-001');
    expect(reads.count).toBeLessThanOrEqual(2 * chain.length);
    reads.count = 0;
    const longest = longestChain(chain);
    expect(longest).toHaveLength(3_000);
    expect(longest.slice(0, 2)).toEqual(['F-001', 'F-002']);
    expect(reads.count).toBeLessThanOrEqual(2 * chain.length);
  });
});
