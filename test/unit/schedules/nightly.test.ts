import { describe, expect, it } from 'vitest';
import { closesWindow, summarizeWindow, type WindowSnapshot } from '../../../orchestrator/nightly.js';
import { featureState, makeRun, makeState } from '../orchestrator/fixtures.js';

const start: WindowSnapshot = {
  runId: 'r-test',
  startedAt: '2026-01-01T01:00:00.000Z',
  passing: ['F-001', 'F-002', 'F-005'],
  costUsd: 1.1,
  deadline: '2026-01-01T07:00:00.000Z',
  maxCostUsd: 21.1,
};

describe('summarizeWindow', () => {
  it('lists newly passing, regressions, blocked features and the cost of the window', () => {
    const state = makeState(
      [
        featureState(1, { passes: true }), // still passing
        featureState(2, { passes: false, regressions: 1 }), // regressed
        featureState(3, { passes: true }), // new
        featureState(4, { blocked: true, blockedReason: 'app did not start' }),
        featureState(5, { passes: false, blocked: true }), // regressed and then blocked
        featureState(6),
      ],
      { counters: { costUsd: 1.1 + 0.7 + 0.2 } },
    );
    expect(summarizeWindow(start, state)).toEqual({
      since: '2026-01-01T01:00:00.000Z',
      newlyPassing: ['F-003'],
      newlyFailing: ['F-002', 'F-005'],
      blocked: ['F-004', 'F-005'],
      blockedReasons: [
        { featureId: 'F-004', reason: 'app did not start' },
        { featureId: 'F-005', reason: 'blocked' },
      ],
      costUsd: 0.9,
      passing: 2,
      total: 6,
    });
  });

  it('names as blocked only the features a person has to look at (not one that passes)', () => {
    const state = makeState([
      featureState(1, { passes: true, blocked: true, blockedReason: 'blocked before it passed' }),
      featureState(2, { blocked: true, blockedReason: 'no login page' }),
    ]);
    expect(summarizeWindow(start, state)).toMatchObject({
      blocked: ['F-002'],
      blockedReasons: [{ featureId: 'F-002', reason: 'no login page' }],
    });
  });

  it('a window that changed nothing reports empty lists and no cost; removed features are not regressions', () => {
    const state = makeState([featureState(1, { passes: true }), featureState(2, { passes: true })], {
      counters: { costUsd: 1.1 },
    });
    expect(summarizeWindow(start, state)).toMatchObject({
      newlyPassing: [],
      newlyFailing: [],
      blocked: [],
      costUsd: 0,
      passing: 2,
      total: 2,
    });
  });

  it('a window that started before the feature list existed counts every pass as new', () => {
    const state = makeState([featureState(1, { passes: true }), featureState(2)], {
      counters: { costUsd: 2 },
    });
    expect(summarizeWindow({ ...start, passing: [], costUsd: 0 }, state)).toMatchObject({
      newlyPassing: ['F-001'],
      costUsd: 2,
    });
  });
});

describe('closesWindow', () => {
  const building = makeRun({ status: 'building' });
  it.each([
    ['paused', 'deadline', true],
    ['paused', 'budget', true],
    ['paused', 'stuck', true],
    ['paused', 'harness-error', true],
    ['paused', 'no-progress', true],
    ['paused', 'user', false],
    ['paused', 'rate-limited', false],
    ['done', null, true],
    ['failed', null, true],
    ['cancelled', null, true],
    ['building', null, false],
  ] as const)('building → %s (%s): %s', (status, reason, closes) => {
    expect(closesWindow(building, makeRun({ status, pausedReason: reason }))).toBe(closes);
  });

  it('a change of pause reason to deadline closes it; setting the same status again does not', () => {
    const user = makeRun({ status: 'paused', pausedReason: 'user' });
    const deadline = makeRun({ status: 'paused', pausedReason: 'deadline' });
    expect(closesWindow(user, deadline)).toBe(true);
    expect(closesWindow(deadline, deadline)).toBe(false);
  });
});
