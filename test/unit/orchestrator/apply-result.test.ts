import { describe, expect, it } from 'vitest';
import { type ApplyInput, applySessionResult } from '../../../orchestrator/run/apply-result.js';
import { emptySession, type SessionRecord } from '../../../orchestrator/run/run-state.js';
import { feature, featureState, makeState, result, T0, verdict } from './fixtures.js';

function session(seq: number, featureIds: string[] = []): SessionRecord {
  return { ...emptySession(seq, `r-test-${seq}`, 'evaluator', T0.toISOString()), featureIds, workerId: 'w1' };
}

function apply(
  state: ReturnType<typeof makeState>,
  seq: number,
  res: ApplyInput['result'],
  extra: Partial<ApplyInput> = {},
) {
  return applySessionResult({
    ...state,
    session: session(seq, res.featureIds),
    result: res,
    now: T0.toISOString(),
    ...extra,
  });
}

describe('applySessionResult', () => {
  it('adds cost and sessions; unknown costs are counted apart', () => {
    const state = makeState([featureState(1)], { counters: { costUsd: 1, sessions: 2 } });
    const out = apply(state, 3, result('generator', ['F-001'], { costUsd: 0.25 }));
    expect(out.run.counters).toMatchObject({ costUsd: 1.25, sessions: 3, costUnknownSessions: 0 });
    const unknown = apply(state, 3, result('generator', ['F-001'], { costUsd: null }));
    expect(unknown.run.counters).toMatchObject({ costUsd: 1, sessions: 3, costUnknownSessions: 1 });
  });

  it('counts a generator session on its feature and records it as the last session', () => {
    const out = apply(
      makeState([featureState(1)]),
      2,
      result('generator', ['F-001'], { outcome: 'checkpointed' }),
    );
    expect(out.changed).toEqual([expect.objectContaining({ id: 'F-001', generatorSessions: 1 })]);
    expect(out.run.lastSession).toEqual({
      seq: 2,
      role: 'generator',
      featureIds: ['F-001'],
      outcome: 'checkpointed',
    });
    expect(out.session).toMatchObject({
      outcome: 'checkpointed',
      finishedAt: T0.toISOString(),
      commits: ['b'],
    });
  });

  it('records no verdict for a feature whose evaluator asked a person instead of judging it', () => {
    const state = makeState([featureState(1, { generatorSessions: 1 })]);
    const asked = result('evaluator', ['F-001'], { outcome: 'checkpointed', askedQuestion: 'Q-1' });
    const out = apply(state, 4, asked);
    expect(out.session.verdicts).toEqual([]);
    expect(out.features[0]).toMatchObject({ lastVerdict: null, blockedEvaluations: 0, generatorSessions: 1 });
    expect(out.run.lastSession).toMatchObject({ role: 'evaluator', outcome: 'checkpointed' });
    // The same session without the question: its missing verdict is `blocked`, as always.
    const silent = apply(state, 4, result('evaluator', ['F-001'], { outcome: 'checkpointed' }));
    expect(silent.session.verdicts).toEqual([{ featureId: 'F-001', verdict: 'blocked', mode: 'evaluate' }]);
  });

  it.each(['rate_limited', 'aborted'] as const)('does not count a %s session towards the plan', (outcome) => {
    const out = apply(makeState([featureState(1)]), 2, result('evaluator', ['F-001'], { outcome }));
    expect(out.run.lastSession).toBeNull();
    expect(out.changed).toEqual([]);
    expect(out.run.counters.sessions).toBe(1);
  });

  it('an interrupted evaluation keeps the verdicts it submitted and records nothing for the rest', () => {
    const state = makeState([featureState(1, { passes: true }), featureState(2, { passes: true })]);
    const interrupted = result('evaluator', ['F-001', 'F-002'], {
      outcome: 'aborted',
      reason: 'interrupted, not judged: the run was paused',
      verdicts: [verdict('F-001', 'pass', 4)],
    });
    const out = apply(state, 4, interrupted);
    expect(out.session.verdicts.map((record) => [record.featureId, record.verdict])).toEqual([
      ['F-001', 'pass'],
    ]);
    expect(out.features.map((feature) => feature.lastVerdict)).toEqual(['pass', null]);
    expect(out.run.lastSession).toBeNull();
  });

  it('applies a pass: the feature passes and progress counters move', () => {
    const state = makeState([featureState(1, { generatorSessions: 2, attempts: 1 })], {
      counters: { evaluationsSinceLastPass: 4 },
    });
    const out = apply(state, 5, result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'pass', 5)] }));
    expect(out.features[0]).toMatchObject({
      passes: true,
      lastVerdict: 'pass',
      lastCheckedSeq: 5,
      generatorSessions: 0,
    });
    expect(out.run.counters).toMatchObject({
      passesSinceLastRegression: 1,
      lastPassSeq: 5,
      evaluationsSinceLastPass: 0,
    });
    expect(out.run.features).toEqual({ total: 1, passing: 1, failing: 0, blocked: 0 });
    expect(out.events.map((event) => event.type)).toEqual(['session.finished', 'verdict.applied']);
  });

  it('counts failed evaluations and blocks the feature at maxAttemptsPerFeature', () => {
    let state = makeState([featureState(1), featureState(2)], {
      config: { budgets: { maxAttemptsPerFeature: 2 } },
    });
    const first = apply(
      state,
      2,
      result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'fail', 2)] }),
    );
    expect(first.features[0]).toMatchObject({ attempts: 1, blocked: false });
    expect(first.run.counters.evaluationsSinceLastPass).toBe(1);
    state = { run: first.run, features: first.features };
    const second = apply(
      state,
      4,
      result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'fail', 4)] }),
    );
    expect(second.features[0]).toMatchObject({
      attempts: 2,
      blocked: true,
      blockedReason: 'failed 2 evaluations; last issues: button does nothing',
    });
    expect(second.events.filter((event) => event.type === 'feature.blocked')).toHaveLength(1);
    expect(second.run.features).toEqual({ total: 2, passing: 0, failing: 1, blocked: 1 });
  });

  it('treats a missing verdict as blocked and blocks the feature after maxBlockedEvaluations', () => {
    let state = makeState([featureState(1)], { config: { budgets: { maxBlockedEvaluations: 2 } } });
    const res = result('evaluator', ['F-001'], { outcome: 'blocked', reason: 'app did not start on $PORT' });
    const first = apply(state, 2, res);
    expect(first.features[0]).toMatchObject({
      passes: false,
      lastVerdict: 'blocked',
      blockedEvaluations: 1,
      blocked: false,
    });
    expect(first.session.verdicts).toEqual([{ featureId: 'F-001', verdict: 'blocked', mode: 'evaluate' }]);
    state = { run: first.run, features: first.features };
    const second = apply(state, 3, res);
    expect(second.features[0]).toMatchObject({
      blocked: true,
      blockedReason: 'evaluation could not run 2 times in a row: app did not start on $PORT',
    });
  });

  it('flips a passing feature back to failing on a regression', () => {
    const state = makeState(
      [featureState(1, { passes: true, attempts: 2 }), featureState(2, { passes: true })],
      {
        counters: { lastPassSeq: 3, passesSinceLastRegression: 5 },
      },
    );
    const out = apply(
      state,
      9,
      result('evaluator', ['F-001', 'F-002'], {
        verdicts: [verdict('F-001', 'fail', 9, 'regression'), verdict('F-002', 'pass', 9, 'regression')],
      }),
    );
    expect(out.features[0]).toMatchObject({ passes: false, attempts: 0, lastCheckedSeq: 9 });
    expect(out.run.counters).toMatchObject({ regressions: 1, evaluationsSinceLastPass: 0 });
    expect(out.events.find((event) => event.type === 'feature.regressed')).toMatchObject({
      featureId: 'F-001',
      issues: ['button does nothing'],
    });
    // Both were checked, so the sweep is complete.
    expect(out.run.counters).toMatchObject({ passesSinceLastRegression: 0, sweeps: 1 });
  });

  it('keeps a sweep open until every candidate was checked', () => {
    const state = makeState([featureState(1, { passes: true }), featureState(2, { passes: true })], {
      counters: { lastPassSeq: 3, passesSinceLastRegression: 5 },
    });
    const out = apply(
      state,
      9,
      result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'pass', 9, 'regression')] }),
    );
    expect(out.run.counters).toMatchObject({ passesSinceLastRegression: 5, sweeps: 0 });
  });

  it('gives up on a regression check that keeps being blocked without flipping the feature', () => {
    let state = makeState([featureState(1, { passes: true })], {
      config: { budgets: { maxBlockedEvaluations: 2 } },
      counters: { lastPassSeq: 3, passesSinceLastRegression: 1 },
    });
    const res = result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'blocked', 9, 'regression')] });
    const first = apply(state, 9, res);
    expect(first.features[0]).toMatchObject({ passes: true, lastCheckedSeq: 0, blockedEvaluations: 1 });
    state = { run: first.run, features: first.features };
    const second = apply(state, 10, res);
    expect(second.features[0]).toMatchObject({
      passes: true,
      lastCheckedSeq: 10,
      blockedEvaluations: 0,
      blocked: false,
    });
    expect(second.run.counters.evaluationsSinceLastPass).toBe(0);
  });

  it('ignores a verdict older than the feature’s last one (a late duplicate)', () => {
    const state = makeState([featureState(1, { lastVerdictSeq: 8, lastVerdict: 'pass', passes: true })]);
    const out = apply(state, 5, result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'fail', 5)] }));
    expect(out.features[0]).toMatchObject({ passes: true, lastVerdictSeq: 8 });
  });

  it('installs an initializer’s feature list and counts initializers without one', () => {
    const state = makeState([], { status: 'initializing' });
    const ok = apply(state, 1, result('initializer', []), { newFeatures: [feature(1), feature(2)] });
    expect(ok.replaced).toBe(true);
    expect(ok.features.map((f) => [f.id, f.position])).toEqual([
      ['F-001', 0],
      ['F-002', 1],
    ]);
    expect(ok.run.features.total).toBe(2);
    expect(ok.run.counters.initializerFailures).toBe(0);
    const failed = apply(
      state,
      1,
      result('initializer', [], { outcome: 'failed', reason: 'feature list invalid' }),
    );
    expect(failed.run.counters.initializerFailures).toBe(1);
  });

  it('counts provider errors in a row and resets them on a counted session', () => {
    const state = makeState([featureState(1)], { counters: { consecutiveProviderErrors: 1 } });
    const error = apply(state, 4, result('generator', ['F-001'], { outcome: 'provider_error' }));
    expect(error.run.counters.consecutiveProviderErrors).toBe(2);
    expect(error.run.lastSession).toBeNull();
    const ok = apply(state, 4, result('generator', ['F-001']));
    expect(ok.run.counters.consecutiveProviderErrors).toBe(0);
  });

  it('reports integrity violations as events and counts them on the session', () => {
    const violation = { kind: 'passes_changed' as const, featureId: 'F-001', detail: 'passes set to true' };
    const out = apply(
      makeState([featureState(1)]),
      2,
      result('generator', ['F-001'], { violations: [violation] }),
    );
    expect(out.session.violations).toBe(1);
    expect(out.events).toContainEqual(
      expect.objectContaining({ type: 'integrity.violation', seq: 2, violation }),
    );
  });
});

describe('a pass without a recorded check', () => {
  it('is applied, and a check.unrecordable event says why no sweep can replay it', () => {
    const pass = {
      ...verdict('F-001', 'pass', 2),
      unrecordable: 'no quoted evidence was confirmed on the page',
    };
    const out = apply(makeState([featureState(1)]), 2, result('evaluator', ['F-001'], { verdicts: [pass] }));
    expect(out.changed).toEqual([expect.objectContaining({ id: 'F-001', passes: true })]);
    expect(out.events.filter((event) => event.type === 'check.unrecordable')).toEqual([
      {
        type: 'check.unrecordable',
        runId: 'r-test',
        at: T0.toISOString(),
        seq: 2,
        featureId: 'F-001',
        reason: 'no quoted evidence was confirmed on the page',
      },
    ]);
    const recorded = apply(
      makeState([featureState(1)]),
      2,
      result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'pass', 2)] }),
    );
    expect(recorded.events.some((event) => event.type === 'check.unrecordable')).toBe(false);
  });
});

describe('a feature that keeps regressing', () => {
  it('is blocked after maxAttemptsPerFeature regressions, so pass/regress cycles end', () => {
    const state = makeState([featureState(1, { passes: true, regressions: 1 })], {
      config: { budgets: { maxAttemptsPerFeature: 2 } },
      counters: { lastPassSeq: 3 },
    });
    const out = apply(
      state,
      9,
      result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'fail', 9, 'regression')] }),
    );
    expect(out.features[0]).toMatchObject({
      passes: false,
      regressions: 2,
      blocked: true,
      blockedReason: 'regressed 2 times after passing',
    });
    expect(out.events.map((event) => event.type)).toEqual([
      'session.finished',
      'feature.regressed',
      'feature.blocked',
      'verdict.applied',
    ]);
  });
});
