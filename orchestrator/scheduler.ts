import { z } from 'zod';
import { checkStopConditions } from './budgets.js';
import { blockedDependencies, dependenciesMet } from './dependencies.js';
import { evaluatesAfterAnswer, waitForAnswers, waitingFeatureIds } from './question-schedule.js';
import {
  ACTIVE_STATUSES,
  type FeatureState,
  PausedReason,
  type RunState,
  sweepCandidates,
  windowSweepCandidates,
} from './run/run-state.js';

/** What the run should do next, as decided by the harness. */
export const NextAction = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('initialize') }),
  z.object({ kind: z.literal('generate'), featureId: z.string() }),
  z.object({ kind: z.literal('evaluate'), featureId: z.string() }),
  z.object({ kind: z.literal('regress'), featureIds: z.array(z.string()).min(1) }),
  z.object({ kind: z.literal('finish') }),
  z.object({ kind: z.literal('pause'), reason: PausedReason, detail: z.string() }),
  z.object({ kind: z.literal('fail'), reason: z.string() }),
  /** Nothing to do now (the run is paused, finished or cancelled). */
  z.object({ kind: z.literal('wait'), reason: z.string() }),
]);
export type NextAction = z.infer<typeof NextAction>;

/**
 * The next action of a run (pure: same state and time, same answer). In order:
 * 1. not active (paused, done, failed, cancelled) → wait;
 * 2. every non-blocked feature passes and no regression check is outstanding → finish (even over budget);
 * 3. budget / deadline / stuck → pause;
 * 4. too many provider errors in a row → fail;
 * 5. no feature list → initialize (or fail after `maxInitializerAttempts` failed initializers);
 * 5b. a nightly window just opened → a regression sweep of every passing feature checked before it (replay first);
 * 6. the follow-up of the last counted session (generator done → evaluate; checkpointed → generate again, until
 *    `maxGeneratorSessionsPerAttempt` in a row → evaluate; `blocked` verdict → evaluate again, unless the app
 *    did not start: then generate, the feedback file holding init.sh's exit code and log tail);
 * 7. a regression sweep when `regressEvery` new passes accumulated, or before finishing (batches of `regressBatchSize`);
 * 8. the first failing, non-blocked feature in list order whose `depends_on` all pass → generate. A feature
 *    whose dependency is blocked is never started (it counts as blocked; apply-result records why). A feature
 *    with an open question waits for its answer (no follow-up either); when only such features (and those that
 *    depend on them) are left → wait, then pause `questions` after `questions.pauseAfterHours`. A feature an
 *    evaluator asked about is evaluated (not generated) once the answer is in.
 * Every loop is bounded: failed evaluations block a feature after `maxAttemptsPerFeature`, `blocked` verdicts after
 * `maxBlockedEvaluations`, and `maxSessions` caps everything, including sessions that did not count.
 */
export function nextAction(state: RunState, now: Date): NextAction {
  const { run, features } = state;
  if (!ACTIVE_STATUSES.includes(run.status)) {
    const why = run.pausedReason ? ` (${run.pausedReason}${run.detail ? `: ${run.detail}` : ''})` : '';
    return { kind: 'wait', reason: `run is ${run.status}${why}` };
  }
  const budgets = run.config.budgets;
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  // A feature waiting on a blocked one is not started (apply-result blocks it too, naming the dependency).
  const blockedBy = blockedDependencies(features);
  const pending = features.filter(
    (feature) => !feature.passes && !feature.blocked && !blockedBy.has(feature.id),
  );
  const candidates = sweepCandidates(state);
  if (features.length > 0 && pending.length === 0 && candidates.length === 0) return { kind: 'finish' };

  const stop = checkStopConditions(state, now);
  if (stop) return { kind: 'pause', reason: stop.reason, detail: stop.detail };
  const failure = providerFailure(state) ?? (features.length === 0 ? initializerFailure(state) : undefined);
  if (failure) return failure;
  if (features.length === 0) return { kind: 'initialize' };

  // A nightly window starts by re-checking what passes: replays of the recorded checks, no model if all are green.
  const windowSweep = windowSweepCandidates(state);
  if (windowSweep.length > 0) {
    return {
      kind: 'regress',
      featureIds: windowSweep.slice(0, run.config.regressBatchSize).map((f) => f.id),
    };
  }
  const waiting = waitingFeatureIds(run);
  const workable = pending.filter((feature) => !waiting.has(feature.id));
  const followUp = followUpOfLastSession(state, waiting);
  if (followUp) return followUp;
  if (
    candidates.length > 0 &&
    (run.counters.passesSinceLastRegression >= run.config.regressEvery || pending.length === 0)
  ) {
    return {
      kind: 'regress',
      featureIds: candidates.slice(0, run.config.regressBatchSize).map((feature) => feature.id),
    };
  }
  // List order, but a feature whose dependencies do not pass yet waits for them (a cycle: the first one anyway,
  // unless something waits for an answer: its answer may unlock the rest).
  const next =
    workable.find((feature) => dependenciesMet(feature, byId)) ??
    (workable.length === pending.length ? pending[0] : undefined);
  if (!next) return waitForAnswers(run, now) ?? { kind: 'wait', reason: 'waiting for an answer' };
  if (evaluatesAfterAnswer(run, next)) return { kind: 'evaluate', featureId: next.id };
  return workOn(next, budgets.maxGeneratorSessionsPerAttempt);
}

/** A `fail` when too many sessions in a row ended with a fatal provider error. */
function providerFailure({ run }: RunState): NextAction | undefined {
  const providerErrors = run.counters.consecutiveProviderErrors;
  if (providerErrors < run.config.budgets.maxConsecutiveProviderErrors) return undefined;
  const last = run.counters.lastProviderError;
  return {
    kind: 'fail',
    reason: last
      ? `provider error: ${last} (fix it, then resume the run)`
      : `${providerErrors} sessions in a row ended with a fatal provider error; check the API key and model ids, then resume`,
  };
}

/** A `fail` once the initializer failed `maxInitializerAttempts` times to produce a valid feature list. */
function initializerFailure({ run }: RunState): NextAction | undefined {
  const failures = run.counters.initializerFailures;
  if (failures < run.config.budgets.maxInitializerAttempts) return undefined;
  const last = run.counters.lastInitializerFailure;
  return {
    kind: 'fail',
    reason: last
      ? `the initializer failed ${failures} times; the last time: ${last}`
      : `the initializer failed ${failures} times to produce a valid feature list`,
  };
}

/** Generate a feature, or evaluate it once enough generator sessions went into it without a verdict. */
function workOn(feature: FeatureState, maxGeneratorSessions: number): NextAction {
  return feature.generatorSessions >= maxGeneratorSessions
    ? { kind: 'evaluate', featureId: feature.id }
    : { kind: 'generate', featureId: feature.id };
}

/** What the last counted session calls for on its own feature, if anything. */
function followUpOfLastSession(state: RunState, waiting: ReadonlySet<string>): NextAction | undefined {
  const last = state.run.lastSession;
  if (!last) return undefined;
  const byId = new Map(state.features.map((feature) => [feature.id, feature]));
  const open = last.featureIds
    .map((id) => byId.get(id))
    .filter(
      (feature): feature is FeatureState =>
        !!feature && !feature.passes && !feature.blocked && !waiting.has(feature.id),
    );
  if (last.role === 'generator') {
    const feature = open[0];
    if (!feature) return undefined;
    if (last.outcome === 'completed' && feature.generatorSessions > 0)
      return { kind: 'evaluate', featureId: feature.id };
    return workOn(feature, state.run.config.budgets.maxGeneratorSessionsPerAttempt);
  }
  if (last.role === 'evaluator') {
    // The app did not start: evaluating again would see the same wall; a generator gets the log to fix it.
    const broken = open.find(
      (feature) => feature.lastVerdict === 'blocked' && feature.lastVerdictCause === 'app_did_not_start',
    );
    if (broken) return { kind: 'generate', featureId: broken.id };
    const retry = open.find((feature) => feature.lastVerdict === 'blocked');
    if (retry) return { kind: 'evaluate', featureId: retry.id };
  }
  return undefined;
}
