import type { VerdictRecord } from '../../handoff/formats.js';
import type { Budgets } from '../config.js';
import type { RunEvent } from '../events.js';
import type { FeatureState, RunCounters } from './run-state.js';

/** Where a verdict is applied: the session, the run's budgets, and the counters and events it updates. */
export interface VerdictContext {
  seq: number;
  now: string;
  /** The verdict comes from a lane: a pass waits for the merge queue before the feature passes. */
  lane: boolean;
  runId: string;
  budgets: Budgets;
  counters: RunCounters;
  events: RunEvent[];
}

/** Applies one verdict to `feature` in place; what it means depends on whether the feature was passing. */
export function applyVerdict(feature: FeatureState, verdict: VerdictRecord, context: VerdictContext): void {
  const { seq, now, runId, events } = context;
  const wasPassing = feature.passes;
  const appDidNotStart = verdict.verdict === 'blocked' && verdict.appStart !== undefined;
  Object.assign(feature, {
    lastVerdict: verdict.verdict,
    lastVerdictCause: appDidNotStart ? 'app_did_not_start' : null,
    lastVerdictAt: now,
    lastVerdictSeq: seq,
    generatorSessions: 0,
  });
  if (verdict.verdict === 'pass') applyPass(feature, wasPassing, context);
  else if (verdict.verdict === 'fail') applyFail(feature, verdict, wasPassing, context);
  else if (appDidNotStart && !wasPassing) applyAppDidNotStart(feature, verdict, context);
  else applyCouldNotRun(feature, verdict, wasPassing, context);
  events.push({
    type: 'verdict.applied',
    runId,
    at: now,
    seq,
    featureId: feature.id,
    verdict: verdict.verdict,
    mode: verdict.mode,
    passes: feature.passes,
    attempts: feature.attempts,
    ...verdictReason(verdict),
  });
}

/** Blocks the feature (once) and says why in a `feature.blocked` event. */
function block(feature: FeatureState, reason: string, { runId, now, seq, events }: VerdictContext): void {
  if (feature.blocked) return;
  Object.assign(feature, { blocked: true, blockedReason: reason });
  events.push({ type: 'feature.blocked', runId, at: now, seq, featureId: feature.id, reason });
}

function applyPass(feature: FeatureState, wasPassing: boolean, context: VerdictContext): void {
  const { seq, counters } = context;
  Object.assign(feature, { blockedEvaluations: 0, lastCheckedSeq: seq });
  if (!wasPassing && context.lane) {
    feature.mergePending = true;
    counters.evaluationsSinceLastPass = 0;
  } else if (!wasPassing) {
    Object.assign(feature, { passes: true, blocked: false, blockedReason: null });
    counters.passesSinceLastRegression += 1;
    counters.lastPassSeq = Math.max(counters.lastPassSeq, seq);
    counters.evaluationsSinceLastPass = 0;
  }
}

function applyFail(
  feature: FeatureState,
  verdict: VerdictRecord,
  wasPassing: boolean,
  context: VerdictContext,
): void {
  const { seq, now, runId, budgets, counters, events } = context;
  Object.assign(feature, { blockedEvaluations: 0, lastCheckedSeq: seq });
  if (wasPassing) {
    Object.assign(feature, { passes: false, attempts: 0, regressions: feature.regressions + 1 });
    counters.regressions += 1;
    events.push({
      type: 'feature.regressed',
      runId,
      at: now,
      seq,
      featureId: feature.id,
      issues: verdict.issues,
    });
    // Pass, regress, fix, regress…: bounded like failed attempts, or a flaky feature would loop forever.
    if (feature.regressions >= budgets.maxAttemptsPerFeature)
      block(feature, `regressed ${feature.regressions} times after passing`, context);
  } else {
    feature.attempts += 1;
    counters.evaluationsSinceLastPass += 1;
    if (feature.attempts >= budgets.maxAttemptsPerFeature) {
      const issues = verdict.issues.length ? `; last issues: ${verdict.issues.slice(0, 3).join('; ')}` : '';
      block(feature, `failed ${feature.attempts} evaluations${issues}`, context);
    }
  }
}

function applyAppDidNotStart(feature: FeatureState, verdict: VerdictRecord, context: VerdictContext): void {
  // A generator gets the log next (the scheduler reads lastVerdictCause); bounded like failed evaluations.
  Object.assign(feature, { blockedEvaluations: 0, attempts: feature.attempts + 1 });
  context.counters.evaluationsSinceLastPass += 1;
  if (feature.attempts >= context.budgets.maxAttemptsPerFeature) {
    const reason = `the app did not start for ${feature.attempts} evaluations: ${firstLine(verdict.reason)}`;
    block(feature, reason, context);
  }
}

/** A `blocked` verdict: the evaluation could not run. */
function applyCouldNotRun(
  feature: FeatureState,
  verdict: VerdictRecord,
  wasPassing: boolean,
  context: VerdictContext,
): void {
  feature.blockedEvaluations += 1;
  const limitReached = feature.blockedEvaluations >= context.budgets.maxBlockedEvaluations;
  if (wasPassing) {
    // A regression check that cannot run is inconclusive: retried, then given up for this sweep.
    if (limitReached) Object.assign(feature, { lastCheckedSeq: context.seq, blockedEvaluations: 0 });
  } else {
    context.counters.evaluationsSinceLastPass += 1;
    if (limitReached) {
      const why = verdict.reason ?? (verdict.issues.join('; ') || 'no reason given');
      block(
        feature,
        `evaluation could not run ${feature.blockedEvaluations} times in a row: ${why}`,
        context,
      );
    }
  }
}

/** Longest reason an event carries: the whole record is in the session history and `verdicts.jsonl`. */
const EVENT_REASON_CHARS = 300;

/** A `fail`'s first issue or a `blocked` verdict's reason, on one line (none for a pass). */
function verdictReason(verdict: VerdictRecord): { reason?: string } {
  if (verdict.verdict === 'pass') return {};
  const why =
    verdict.verdict === 'blocked'
      ? (verdict.reason ?? verdict.issues[0])
      : (verdict.issues[0] ?? verdict.reason);
  if (!why) return {};
  const line = why.replace(/\s+/g, ' ').trim();
  return { reason: line.length > EVENT_REASON_CHARS ? `${line.slice(0, EVENT_REASON_CHARS - 1)}…` : line };
}

/** The first line of a reason (the app-start reasons go on with the log's last lines). */
export function firstLine(reason: string | undefined): string {
  return (reason ?? 'no reason given').split('\n')[0] as string;
}
