/** How a run takes sessions that ended on the provider's side: refusals, fatal failures, unknown prices. */
import { describe, expect, it } from 'vitest';
import { applySessionResult } from '../../../orchestrator/run/apply-result.js';
import { emptySession } from '../../../orchestrator/run/run-state.js';
import { nextAction } from '../../../orchestrator/scheduler.js';
import { featureState, makeState, result, T0 } from './fixtures.js';

function apply(state: ReturnType<typeof makeState>, res: ReturnType<typeof result>) {
  return applySessionResult({
    ...state,
    session: { ...emptySession(2, 'r-test-2', res.role, T0.toISOString()), workerId: 'w1' },
    result: res,
    now: T0.toISOString(),
  });
}

describe('fatal provider failures', () => {
  it.each(['quota_exhausted', 'auth', 'model_not_found'])(
    'a %s failure fails the run at once, with the provider message and the fix',
    (kind) => {
      const message = `openai:gpt-5: out of credit (429 You exceeded your current quota); add credit (${kind})`;
      const out = apply(
        makeState([]),
        result('initializer', [], {
          outcome: 'provider_error',
          reason: message,
          providerFailure: { kind, message },
          costUsd: 0,
        }),
      );
      const action = nextAction({ run: { ...out.run, status: 'initializing' }, features: [] }, T0);
      expect(action).toEqual({
        kind: 'fail',
        reason: `provider error: ${message} (fix it, then resume the run)`,
      });
    },
  );

  it('a transient provider error is counted, and fails the run only after maxConsecutiveProviderErrors', () => {
    const failure = { kind: 'retryable', message: 'anthropic:m: 500 boom' };
    const once = apply(
      makeState([]),
      result('initializer', [], { outcome: 'provider_error', providerFailure: failure, costUsd: 0 }),
    );
    expect(once.run.counters.consecutiveProviderErrors).toBe(1);
    expect(nextAction({ run: once.run, features: [] }, T0).kind).toBe('initialize');
  });
});

describe('refusals', () => {
  it('do not count as work, repeat the step, and fail the run when they keep coming', () => {
    const state = makeState([featureState(1)]);
    const refused = result('generator', ['F-001'], { outcome: 'refused', reason: 'the model refused: no.' });
    const first = apply(state, refused);
    expect(first.run.lastSession).toBeNull();
    expect(first.changed).toEqual([]);
    expect(first.session.outcome).toBe('refused');
    expect(nextAction({ run: first.run, features: first.features }, T0)).toEqual({
      kind: 'generate',
      featureId: 'F-001',
    });
    const second = apply({ run: first.run, features: first.features }, refused);
    expect(nextAction({ run: second.run, features: second.features }, T0)).toEqual({
      kind: 'fail',
      reason: 'provider error: the model refused: no. (fix it, then resume the run)',
    });
  });

  it('are forgotten after a session that worked', () => {
    const state = makeState([featureState(1)], {
      counters: { consecutiveProviderErrors: 1, lastProviderError: 'refused' },
    });
    const out = apply(state, result('generator', ['F-001']));
    expect(out.run.counters).toMatchObject({ consecutiveProviderErrors: 0, lastProviderError: null });
  });
});

describe('sessions without a price', () => {
  it('add their tokens to the unpriced budget and their count to costUnknownSessions, never $0', () => {
    const usage = { inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 5_000, cacheWriteTokens: 300 };
    const out = apply(makeState([featureState(1)]), result('generator', ['F-001'], { costUsd: null, usage }));
    expect(out.run.counters).toMatchObject({ costUsd: 0, costUnknownSessions: 1, unpricedTokens: 6_500 });
  });
});
