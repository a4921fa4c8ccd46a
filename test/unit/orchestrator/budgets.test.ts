import { describe, expect, it } from 'vitest';
import { budgetStatus, checkStopConditions, shouldCheckpointNow } from '../../../orchestrator/budgets.js';
import { featureState, makeState, T0 } from './fixtures.js';

describe('checkStopConditions', () => {
  it('lets a fresh run go on', () => {
    expect(checkStopConditions(makeState([featureState(1)]), T0)).toBeNull();
  });

  it('reports the first crossed condition: cost, then sessions, then deadline, then stuck', () => {
    const all = {
      config: {
        budgets: {
          maxCostUsd: 5,
          maxSessions: 3,
          deadline: '2025-12-31T00:00:00Z',
          stuckAfterEvaluations: 2,
        },
      },
      counters: { costUsd: 5.5, sessions: 3, evaluationsSinceLastPass: 2 },
    };
    expect(checkStopConditions(makeState([], all), T0)?.reason).toBe('budget');
    expect(
      checkStopConditions(makeState([], { ...all, counters: { ...all.counters, costUsd: 1 } }), T0),
    ).toEqual({
      reason: 'budget',
      detail: '3 sessions reached the limit of 3',
    });
    expect(
      checkStopConditions(
        makeState([], { ...all, counters: { ...all.counters, costUsd: 1, sessions: 1 } }),
        T0,
      )?.reason,
    ).toBe('deadline');
    expect(
      checkStopConditions(
        makeState([], {
          ...all,
          config: { budgets: { ...all.config.budgets, deadline: '2026-02-01T00:00:00Z' } },
          counters: { ...all.counters, costUsd: 1, sessions: 1 },
        }),
        T0,
      ),
    ).toEqual({ reason: 'stuck', detail: '2 evaluations in a row without a new pass' });
  });

  it('does not count sessions of unknown cost as free money: they are reported, the known cost is compared', () => {
    const state = makeState([], { counters: { costUsd: 19.99, costUnknownSessions: 4 } });
    expect(checkStopConditions(state, T0)).toBeNull();
    expect(budgetStatus(state, T0).costUnknownSessions).toBe(4);
  });
});

describe('budgetStatus and shouldCheckpointNow (mid-session)', () => {
  const state = makeState([], {
    config: { budgets: { maxCostUsd: 10, maxSessions: 50, deadline: '2026-01-01T01:00:00Z' } },
    counters: { costUsd: 8, sessions: 20 },
  });

  it('reports what is left', () => {
    expect(budgetStatus(state, T0, { costUsd: 1 })).toEqual({
      costUsd: 9,
      maxCostUsd: 10,
      remainingUsd: 1,
      unpricedTokens: 0,
      maxUnpricedTokens: 20_000_000,
      sessions: 20,
      maxSessions: 50,
      remainingSessions: 30,
      deadline: '2026-01-01T01:00:00Z',
      remainingMs: 3_600_000,
      costUnknownSessions: 0,
      stop: null,
    });
  });

  it('stops a session whose running cost crosses the budget', () => {
    expect(shouldCheckpointNow(state, T0, 1.99)).toBeNull();
    expect(shouldCheckpointNow(state, T0, 2)).toEqual({
      reason: 'budget',
      detail: 'cost $10.00 reached the budget of $10.00',
    });
  });

  it('stops a session at the deadline', () => {
    expect(shouldCheckpointNow(state, new Date('2026-01-01T01:00:00Z'), 0)).toEqual({
      reason: 'deadline',
      detail: 'deadline 2026-01-01T01:00:00Z passed',
    });
  });

  it('has no deadline unless configured', () => {
    expect(budgetStatus(makeState([]), T0).remainingMs).toBeNull();
  });
});

describe('models without a price', () => {
  const unpriced = makeState([], {
    config: { budgets: { maxUnpricedTokens: 1_000_000 } },
    counters: { sessions: 3, costUnknownSessions: 3, unpricedTokens: 900_000 },
  });

  it('are capped by the token budget instead of counting as $0', () => {
    expect(checkStopConditions(unpriced, T0)).toBeNull();
    expect(shouldCheckpointNow(unpriced, T0, { unpricedTokens: 100_000 })).toEqual({
      reason: 'budget',
      detail: expect.stringMatching(/^models without a price used 1000000 tokens, the budget of 1000000/),
    });
  });

  it('have no cap when both budgets are off (--budget-usd none and maxUnpricedTokens null)', () => {
    const open = makeState([], {
      config: { budgets: { maxCostUsd: null, maxUnpricedTokens: null } },
      counters: { costUsd: 1e6, unpricedTokens: 1e12 },
    });
    expect(checkStopConditions(open, T0)).toBeNull();
    expect(budgetStatus(open, T0)).toMatchObject({ maxCostUsd: null, remainingUsd: null });
  });
});
