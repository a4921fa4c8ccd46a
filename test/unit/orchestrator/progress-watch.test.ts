import { describe, expect, it } from 'vitest';
import { checkStopConditions } from '../../../orchestrator/budgets.js';
import { isMachineCondition } from '../../../orchestrator/harness-errors.js';
import {
  countersOnResume,
  countHarnessError,
  harnessErrorStop,
  NO_PROGRESS_MIN_SESSIONS,
  noProgressStop,
} from '../../../orchestrator/progress-watch.js';
import { applySessionResult } from '../../../orchestrator/run/apply-result.js';
import { emptyCounters, emptySession } from '../../../orchestrator/run/run-state.js';
import { nextAction } from '../../../orchestrator/scheduler.js';
import { featureState, makeRun, makeState, result, T0 } from './fixtures.js';

const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

describe('the repeated harness error counter', () => {
  it('counts the same error on the same step, and starts over on another step or another error', () => {
    const message = 'FormatError: feature_list.json: not valid JSON (Unexpected token)';
    let counters = countHarnessError(emptyCounters(), 'evaluate F-001', message);
    counters = countHarnessError(counters, 'evaluate F-001', message);
    expect(counters.repeatedHarnessErrors).toBe(2);
    expect(countHarnessError(counters, 'evaluate F-002', message).repeatedHarnessErrors).toBe(1);
    expect(countHarnessError(counters, 'evaluate F-001', 'GitError: fatal').repeatedHarnessErrors).toBe(1);
    // A temp dir or a port in the message does not make it another error.
    const a = countHarnessError(
      emptyCounters(),
      'generate F-001',
      'cannot open /tmp/copy-17/app (port 4101)',
    );
    expect(
      countHarnessError(a, 'generate F-001', 'cannot open /tmp/copy-18/app (port 4102)')
        .repeatedHarnessErrors,
    ).toBe(2);
  });

  it('pauses `harness-error` at maxRepeatedHarnessErrors, naming the step, the error and what to do', () => {
    const lastHarnessError = { step: 'evaluate F-001', message: 'FormatError: feature_list.json: bad' };
    const below = makeRun({ counters: { repeatedHarnessErrors: 2, lastHarnessError } });
    expect(harnessErrorStop(below)).toBeNull();
    const at = makeRun({ counters: { repeatedHarnessErrors: 3, lastHarnessError } });
    const stop = harnessErrorStop(at);
    expect(stop?.reason).toBe('harness-error');
    expect(stop?.detail).toContain(
      'evaluate F-001 failed 3 times in a row with: FormatError: feature_list.json: bad',
    );
    expect(stop?.detail).toContain('nightshift resume');
    const state = makeState([featureState(1)], { counters: { repeatedHarnessErrors: 3, lastHarnessError } });
    expect(nextAction(state, T0)).toMatchObject({ kind: 'pause', reason: 'harness-error' });
    const raised = makeRun({
      config: { budgets: { maxRepeatedHarnessErrors: 5 } },
      counters: { repeatedHarnessErrors: 3, lastHarnessError },
    });
    expect(harnessErrorStop(raised)).toBeNull();
  });

  it('a recorded session result resets it; resuming from `harness-error` resets it', () => {
    const state = makeState([featureState(1)], {
      counters: { repeatedHarnessErrors: 2, lastHarnessError: { step: 'generate F-001', message: 'x' } },
    });
    const out = applySessionResult({
      run: state.run,
      features: state.features,
      session: emptySession(3, 'r-test-3', 'generator', T0.toISOString()),
      result: result('generator', ['F-001']),
      now: T0.toISOString(),
    });
    expect(out.run.counters).toMatchObject({ repeatedHarnessErrors: 0, lastHarnessError: null });
    const resumed = countersOnResume(state.run.counters, 'harness-error', T0.toISOString(), 9);
    expect(resumed).toMatchObject({ repeatedHarnessErrors: 0, lastHarnessError: null, progressSeq: 9 });
    // Another pause reason keeps the count (the error has not gone away by itself).
    expect(countersOnResume(state.run.counters, 'user', T0.toISOString(), 9).repeatedHarnessErrors).toBe(2);
  });
});

describe('the no-progress watchdog', () => {
  const building = (patch: Parameters<typeof makeRun>[0] & { seq?: number } = {}) => ({
    ...makeRun(patch),
    seq: patch.seq ?? 10,
  });

  it('pauses a building run once sessions kept starting for noProgressMinutes with nothing landing', () => {
    const run = building({ counters: { progressAt: T0.toISOString(), progressSeq: 4 } });
    expect(noProgressStop(run, minutes(14))).toBeNull();
    const stop = noProgressStop(run, minutes(15));
    expect(stop?.reason).toBe('no-progress');
    expect(stop?.detail).toContain('6 sessions started in 15 minutes without a commit or a new pass');
    expect(checkStopConditions({ run }, minutes(16))?.reason).toBe('no-progress');
  });

  it('does not apply to one long session, to a run not building, or when off (0)', () => {
    const progress = { progressAt: T0.toISOString(), progressSeq: 9 };
    const oneSession = building({ counters: progress, seq: 9 + NO_PROGRESS_MIN_SESSIONS - 1 });
    expect(noProgressStop(oneSession, minutes(60))).toBeNull();
    expect(noProgressStop(building({ counters: progress, seq: 20 }), minutes(60))).not.toBeNull();
    expect(
      noProgressStop(building({ counters: progress, seq: 20, status: 'initializing' }), minutes(60)),
    ).toBeNull();
    const off = building({ counters: progress, seq: 20, config: { budgets: { noProgressMinutes: 0 } } });
    expect(noProgressStop(off, minutes(600))).toBeNull();
  });

  it('counts from the start of the run when nothing has landed yet, and from the resume after a pause', () => {
    const fresh = building({ seq: 5 });
    expect(noProgressStop(fresh, minutes(20))?.reason).toBe('no-progress');
    const resumed = {
      ...fresh,
      counters: countersOnResume(fresh.counters, 'no-progress', minutes(20).toISOString(), 5),
    };
    expect(noProgressStop({ ...resumed, seq: 8 }, minutes(30))).toBeNull();
    expect(noProgressStop({ ...resumed, seq: 8 }, minutes(35))?.reason).toBe('no-progress');
  });

  it('a counted session that committed, or a new pass, is progress; an aborted one is not', () => {
    const state = makeState([featureState(1)], {
      counters: { progressAt: T0.toISOString(), progressSeq: 1 },
    });
    const apply = (patch: Parameters<typeof result>[2]) =>
      applySessionResult({
        run: { ...state.run, seq: 7 },
        features: state.features,
        session: emptySession(7, 'r-test-7', 'generator', T0.toISOString()),
        result: result('generator', ['F-001'], patch),
        now: minutes(10).toISOString(),
      }).run.counters;
    expect(apply({})).toMatchObject({ progressAt: minutes(10).toISOString(), progressSeq: 7 });
    expect(apply({ commits: [] })).toMatchObject({ progressAt: T0.toISOString(), progressSeq: 1 });
    expect(apply({ outcome: 'aborted' })).toMatchObject({ progressAt: T0.toISOString(), progressSeq: 1 });
  });
});

describe('errors of the machine, not of the step', () => {
  it('takes a full disk, however git, Node or the shell words it, as the machine’s', () => {
    const git = new Error(
      "git checkout -q -f -B main refs/remotes/origin/main: fatal: sha1 file '.git/index.lock' write error. Out of diskspace",
    );
    const node = Object.assign(new Error('write failed'), { code: 'ENOSPC' });
    expect(isMachineCondition(git)).toBe(true);
    expect(isMachineCondition(node)).toBe(true);
    expect(isMachineCondition('cp: error writing x: No space left on device')).toBe(true);
    expect(isMachineCondition(new Error('FormatError: feature_list.json is not valid JSON'))).toBe(false);
  });
});
