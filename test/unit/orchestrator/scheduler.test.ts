import { describe, expect, it } from 'vitest';
import type { RunState } from '../../../orchestrator/run/index.js';
import { type NextAction, nextAction } from '../../../orchestrator/scheduler.js';
import { featureState, makeState, T0 } from './fixtures.js';

const passing = (n: number, lastCheckedSeq = 1) =>
  featureState(n, { passes: true, lastVerdict: 'pass', lastCheckedSeq });

interface Case {
  name: string;
  state: RunState;
  now?: Date;
  expected: NextAction;
}

const cases: Case[] = [
  // Status gate
  ...(['paused', 'done', 'failed', 'cancelled'] as const).map(
    (status): Case => ({
      name: `waits while ${status}`,
      state: makeState([featureState(1)], { status, pausedReason: status === 'paused' ? 'user' : null }),
      expected: { kind: 'wait', reason: status === 'paused' ? 'run is paused (user)' : `run is ${status}` },
    }),
  ),
  // Initializer
  {
    name: 'initializes a run without features',
    state: makeState([], { status: 'created' }),
    expected: { kind: 'initialize' },
  },
  {
    name: 'retries a failed initializer',
    state: makeState([], { status: 'initializing', counters: { initializerFailures: 2 } }),
    expected: { kind: 'initialize' },
  },
  {
    name: 'fails after maxInitializerAttempts failed initializers',
    state: makeState([], { status: 'initializing', counters: { initializerFailures: 3 } }),
    expected: { kind: 'fail', reason: 'the initializer failed 3 times to produce a valid feature list' },
  },
  // Stop conditions
  {
    name: 'pauses on the cost budget',
    state: makeState([featureState(1)], { counters: { costUsd: 20 } }),
    expected: { kind: 'pause', reason: 'budget', detail: 'cost $20.00 reached the budget of $20.00' },
  },
  {
    name: 'pauses on the session budget',
    state: makeState([featureState(1)], {
      config: { budgets: { maxSessions: 10 } },
      counters: { sessions: 10 },
    }),
    expected: { kind: 'pause', reason: 'budget', detail: '10 sessions reached the limit of 10' },
  },
  {
    name: 'pauses at the deadline',
    state: makeState([featureState(1)], { config: { budgets: { deadline: '2026-01-01T06:00:00Z' } } }),
    now: new Date('2026-01-01T06:00:00Z'),
    expected: { kind: 'pause', reason: 'deadline', detail: 'deadline 2026-01-01T06:00:00Z passed' },
  },
  {
    name: 'goes on before the deadline',
    state: makeState([featureState(1)], { config: { budgets: { deadline: '2026-01-01T06:00:00Z' } } }),
    now: new Date('2026-01-01T05:59:59Z'),
    expected: { kind: 'generate', featureId: 'F-001' },
  },
  {
    name: 'pauses stuck after N evaluations without a new pass',
    state: makeState([featureState(1)], { counters: { evaluationsSinceLastPass: 6 } }),
    expected: { kind: 'pause', reason: 'stuck', detail: '6 evaluations in a row without a new pass' },
  },
  {
    name: 'checks budgets before initializing',
    state: makeState([], { status: 'created', counters: { costUsd: 25 } }),
    expected: { kind: 'pause', reason: 'budget', detail: 'cost $25.00 reached the budget of $20.00' },
  },
  {
    name: 'fails after consecutive fatal provider errors',
    state: makeState([featureState(1)], { counters: { consecutiveProviderErrors: 2 } }),
    expected: {
      kind: 'fail',
      reason:
        '2 sessions in a row ended with a fatal provider error; check the API key and model ids, then resume',
    },
  },
  // Feature selection
  {
    name: 'generates the first failing feature in list order',
    state: makeState([passing(1), featureState(2), featureState(3)]),
    expected: { kind: 'generate', featureId: 'F-002' },
  },
  {
    name: 'skips blocked features',
    state: makeState([featureState(1, { blocked: true, blockedReason: 'x' }), featureState(2)]),
    expected: { kind: 'generate', featureId: 'F-002' },
  },
  {
    name: 'evaluates after a completed generator session',
    state: makeState([featureState(1, { generatorSessions: 1 }), featureState(2)], {
      lastSession: { seq: 2, role: 'generator', featureIds: ['F-001'], outcome: 'completed' },
    }),
    expected: { kind: 'evaluate', featureId: 'F-001' },
  },
  {
    name: 'continues a checkpointed generator on the same feature',
    state: makeState([featureState(1), featureState(2, { generatorSessions: 1 })], {
      lastSession: { seq: 2, role: 'generator', featureIds: ['F-002'], outcome: 'checkpointed' },
    }),
    expected: { kind: 'generate', featureId: 'F-002' },
  },
  {
    name: 'evaluates after maxGeneratorSessionsPerAttempt checkpoints in a row',
    state: makeState([featureState(1, { generatorSessions: 3 })], {
      lastSession: { seq: 4, role: 'generator', featureIds: ['F-001'], outcome: 'checkpointed' },
    }),
    expected: { kind: 'evaluate', featureId: 'F-001' },
  },
  {
    name: 'sends a failed feature back to the generator',
    state: makeState(
      [featureState(1, { attempts: 1, lastVerdict: 'fail', lastCheckedSeq: 3 }), featureState(2)],
      {
        lastSession: { seq: 3, role: 'evaluator', featureIds: ['F-001'], outcome: 'completed' },
        counters: { evaluationsSinceLastPass: 1 },
      },
    ),
    expected: { kind: 'generate', featureId: 'F-001' },
  },
  {
    name: 're-evaluates after a blocked verdict',
    state: makeState([featureState(1, { blockedEvaluations: 1, lastVerdict: 'blocked' }), featureState(2)], {
      lastSession: { seq: 3, role: 'evaluator', featureIds: ['F-001'], outcome: 'blocked' },
    }),
    expected: { kind: 'evaluate', featureId: 'F-001' },
  },
  {
    name: 'moves on once a feature is blocked after its attempts',
    state: makeState(
      [featureState(1, { attempts: 3, blocked: true, blockedReason: 'failed 3' }), featureState(2)],
      {
        lastSession: { seq: 7, role: 'evaluator', featureIds: ['F-001'], outcome: 'completed' },
      },
    ),
    expected: { kind: 'generate', featureId: 'F-002' },
  },
  {
    name: 'moves on after a pass',
    state: makeState([passing(1, 3), featureState(2)], {
      lastSession: { seq: 3, role: 'evaluator', featureIds: ['F-001'], outcome: 'completed' },
      counters: { lastPassSeq: 3, passesSinceLastRegression: 1 },
    }),
    expected: { kind: 'generate', featureId: 'F-002' },
  },
  // Regression sweeps
  {
    name: 'sweeps after regressEvery passes, in batches',
    state: makeState([...[1, 2, 3, 4].map((n) => passing(n, n)), passing(5, 9), featureState(6)], {
      config: { regressEvery: 5, regressBatchSize: 3 },
      counters: { lastPassSeq: 9, passesSinceLastRegression: 5 },
    }),
    expected: { kind: 'regress', featureIds: ['F-001', 'F-002', 'F-003'] },
  },
  {
    name: 'continues a sweep with the features not yet checked',
    state: makeState(
      [passing(1, 10), passing(2, 10), passing(3, 10), passing(4, 4), passing(5, 9), featureState(6)],
      {
        config: { regressEvery: 5, regressBatchSize: 3 },
        counters: { lastPassSeq: 9, passesSinceLastRegression: 5 },
      },
    ),
    expected: { kind: 'regress', featureIds: ['F-004'] },
  },
  {
    name: 'a nightly window starts with a sweep of every feature passing before it, before the follow-up',
    state: makeState([passing(1, 2), passing(2, 8), passing(3, 12), featureState(4)], {
      config: { regressEvery: 5, regressBatchSize: 3 },
      counters: { lastPassSeq: 8, passesSinceLastRegression: 1, windowSweepBeforeSeq: 11 },
      lastSession: { seq: 10, role: 'generator', featureIds: ['F-004'], outcome: 'completed' },
    }),
    expected: { kind: 'regress', featureIds: ['F-001', 'F-002'] },
  },
  {
    name: 'after the window sweep the follow-up goes on',
    state: makeState([passing(1, 12), passing(2, 12), featureState(4, { generatorSessions: 1 })], {
      counters: { lastPassSeq: 8, passesSinceLastRegression: 1, windowSweepBeforeSeq: 11 },
      lastSession: { seq: 12, role: 'evaluator', featureIds: ['F-001', 'F-002'], outcome: 'completed' },
    }),
    expected: { kind: 'generate', featureId: 'F-004' },
  },
  {
    name: 'does not sweep before regressEvery passes',
    state: makeState([passing(1, 1), passing(2, 3), featureState(3)], {
      counters: { lastPassSeq: 3, passesSinceLastRegression: 2 },
    }),
    expected: { kind: 'generate', featureId: 'F-003' },
  },
  {
    name: 'sweeps before finishing',
    state: makeState([passing(1, 1), passing(2, 3)], {
      counters: { lastPassSeq: 3, passesSinceLastRegression: 2 },
    }),
    expected: { kind: 'regress', featureIds: ['F-001'] },
  },
  {
    name: 'fixes a regression found by a sweep',
    state: makeState([featureState(1, { lastVerdict: 'fail', lastCheckedSeq: 5 }), passing(2, 5)], {
      lastSession: { seq: 5, role: 'evaluator', featureIds: ['F-001', 'F-002'], outcome: 'completed' },
      counters: { lastPassSeq: 3, regressions: 1 },
    }),
    expected: { kind: 'generate', featureId: 'F-001' },
  },
  // Finishing
  {
    name: 'finishes when every feature passes and the sweep is clean',
    state: makeState([passing(1, 5), passing(2, 5)], { counters: { lastPassSeq: 3 } }),
    expected: { kind: 'finish' },
  },
  {
    name: 'finishes when every non-blocked feature passes',
    state: makeState([passing(1, 3), featureState(2, { blocked: true, blockedReason: 'x' })], {
      counters: { lastPassSeq: 3 },
    }),
    expected: { kind: 'finish' },
  },
  {
    name: 'finishes when every feature is blocked',
    state: makeState([featureState(1, { blocked: true, blockedReason: 'x' })]),
    expected: { kind: 'finish' },
  },
  {
    name: 'finishes even when the budget is spent',
    state: makeState([passing(1, 3)], { counters: { lastPassSeq: 3, costUsd: 100 } }),
    expected: { kind: 'finish' },
  },
];

describe('nextAction', () => {
  it.each(cases)('$name', ({ state, now, expected }) => {
    expect(nextAction(state, now ?? T0)).toEqual(expected);
  });

  it('is pure: the same state gives the same action and is not modified', () => {
    const state = makeState([passing(1, 1), passing(2, 3), featureState(3)], {
      counters: { lastPassSeq: 3, passesSinceLastRegression: 5 },
    });
    const copy = structuredClone(state);
    expect(nextAction(state, T0)).toEqual(nextAction(state, T0));
    expect(state).toEqual(copy);
  });
});
