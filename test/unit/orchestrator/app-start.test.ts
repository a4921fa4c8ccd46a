import { describe, expect, it } from 'vitest';
import type { AppStartFailure } from '../../../handoff/formats.js';
import { type ApplyInput, applySessionResult } from '../../../orchestrator/run/apply-result.js';
import { emptySession, type RunState } from '../../../orchestrator/run/run-state.js';
import { nextAction } from '../../../orchestrator/scheduler.js';
import { featureState, makeState, result, T0, verdict } from './fixtures.js';

const FAILURE: AppStartFailure = {
  exitCode: 1,
  logTail: ['> node server.js', "Error: Cannot find module 'express'"],
  logFile: 'runs/r-test/sessions/4-app.log',
};
const REASON = `init.sh exited with code 1 before the app answered on port 4000; last log lines (4-app.log):\n${FAILURE.logTail.join('\n')}`;

/** The run after session `seq` gave `res`, as the planner will read it. */
function applied(state: RunState, seq: number, res: ApplyInput['result']) {
  const out = applySessionResult({
    ...state,
    session: {
      ...emptySession(seq, `r-test-${seq}`, res.role, T0.toISOString()),
      featureIds: res.featureIds,
    },
    result: res,
    now: T0.toISOString(),
  });
  return { out, state: { run: out.run, features: out.features } };
}

/** An evaluation of F-001 that the app did not start for, as roles/evaluator.ts records it. */
function appDidNotStart(seq: number) {
  return result('evaluator', ['F-001'], {
    outcome: 'blocked',
    reason: REASON,
    appStart: FAILURE,
    verdicts: [{ ...verdict('F-001', 'blocked', seq), reason: REASON, appStart: FAILURE }],
  });
}

describe('an evaluation the app did not start for', () => {
  it('is followed by a generator on the feature, with an app.start_failed event', () => {
    const { out, state } = applied(makeState([featureState(1), featureState(2)]), 4, appDidNotStart(4));
    const feature = out.features[0];
    expect(feature).toMatchObject({
      lastVerdict: 'blocked',
      lastVerdictCause: 'app_did_not_start',
      attempts: 1,
      blockedEvaluations: 0,
      blocked: false,
    });
    expect(nextAction(state, T0)).toEqual({ kind: 'generate', featureId: 'F-001' });
    expect(out.events).toContainEqual(
      expect.objectContaining({
        type: 'app.start_failed',
        seq: 4,
        role: 'evaluator',
        featureIds: ['F-001'],
        exitCode: 1,
        logFile: FAILURE.logFile,
        logTail: FAILURE.logTail,
        reason:
          'init.sh exited with code 1 before the app answered on port 4000; last log lines (4-app.log):',
      }),
    );
  });

  it('still re-evaluates after a blocked verdict with another cause (a browser crash)', () => {
    const crashed = result('evaluator', ['F-001'], {
      outcome: 'blocked',
      verdicts: [{ ...verdict('F-001', 'blocked', 4), reason: 'the browser could not be started' }],
    });
    const { out, state } = applied(makeState([featureState(1)]), 4, crashed);
    expect(out.features[0]).toMatchObject({ lastVerdictCause: null, blockedEvaluations: 1, attempts: 0 });
    expect(out.events.some((event) => event.type === 'app.start_failed')).toBe(false);
    expect(nextAction(state, T0)).toEqual({ kind: 'evaluate', featureId: 'F-001' });
  });

  it('goes generator → evaluator → generator, and blocks the feature naming the app after maxAttemptsPerFeature', () => {
    let state = makeState([featureState(1), featureState(2)]);
    const actions: string[] = [];
    for (let seq = 1; seq <= 6; seq++) {
      const action = nextAction(state, T0);
      actions.push(`${action.kind} ${'featureId' in action ? action.featureId : ''}`.trim());
      const res = action.kind === 'generate' ? result('generator', [action.featureId]) : appDidNotStart(seq);
      state = applied(state, seq, res).state;
    }
    expect(actions).toEqual([
      'generate F-001',
      'evaluate F-001',
      'generate F-001',
      'evaluate F-001',
      'generate F-001',
      'evaluate F-001',
    ]);
    expect(state.features[0]).toMatchObject({
      blocked: true,
      blockedReason: expect.stringMatching(
        /^the app did not start for 3 evaluations: init\.sh exited with code 1/,
      ),
    });
    expect(nextAction(state, T0)).toEqual({ kind: 'generate', featureId: 'F-002' });
  });

  it('clears the cause with the next verdict', () => {
    const { state } = applied(makeState([featureState(1)]), 2, appDidNotStart(2));
    const { out } = applied(
      state,
      4,
      result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'fail', 4)] }),
    );
    expect(out.features[0]).toMatchObject({ lastVerdict: 'fail', lastVerdictCause: null, attempts: 2 });
  });
});

describe('the app start after the initializer', () => {
  const failedInit = () =>
    result('initializer', [], {
      outcome: 'failed',
      reason:
        'the app did not start after the initializer: init.sh exited with code 1; app log: /data/runs/r-test/sessions/1-app.log',
      appStart: { ...FAILURE, logFile: 'runs/r-test/sessions/1-app.log' },
    });

  it('sends the run back to the initializer, then fails it naming init.sh and the log', () => {
    let state = makeState([], { status: 'initializing' });
    for (let seq = 1; seq <= 3; seq++) {
      expect(nextAction(state, T0)).toEqual({ kind: 'initialize' });
      const { out, state: next } = applied(state, seq, failedInit());
      expect(out.events).toContainEqual(
        expect.objectContaining({ type: 'app.start_failed', role: 'initializer', exitCode: 1 }),
      );
      state = next;
    }
    const action = nextAction(state, T0);
    expect(action).toEqual({
      kind: 'fail',
      reason:
        'the initializer failed 3 times; the last time: the app did not start after the initializer: init.sh exited with code 1; app log: /data/runs/r-test/sessions/1-app.log',
    });
  });

  it('forgets the last failure once an initializer works', () => {
    const { state } = applied(makeState([], { status: 'initializing' }), 1, failedInit());
    const worked = applySessionResult({
      ...state,
      session: { ...emptySession(2, 'r-test-2', 'initializer', T0.toISOString()) },
      result: result('initializer', []),
      newFeatures: [featureState(1)],
      now: T0.toISOString(),
    });
    expect(worked.run.counters).toMatchObject({ initializerFailures: 1, lastInitializerFailure: null });
  });
});
