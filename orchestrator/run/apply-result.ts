import { RUN_FATAL_FAILURES } from '../../agent/messages.js';
import type { AppStartFailure, Feature, VerdictRecord } from '../../handoff/formats.js';
import type { SessionOutcome, SessionResult } from '../../roles/session-result.js';
import type { Budgets } from '../config.js';
import { blockDependents } from '../dependencies.js';
import type { RunEvent } from '../events.js';
import type { LaneLastStep, LaneRecord } from '../lanes/lanes.js';
import { lanesEstimateEvent } from '../lanes/lanes-payoff.js';
import { withProgress } from '../progress-watch.js';
import { applyVerdict, firstLine } from './apply-verdict.js';
import {
  type FeatureState,
  type RunCounters,
  type RunRecord,
  type SessionRecord,
  summarizeFeatures,
  sweepCandidates,
  toFeatureState,
} from './run-state.js';

/** Outcomes that say nothing about the work (the session did not really run): the scheduler repeats its step. */
export const NOT_COUNTED_OUTCOMES: readonly SessionOutcome[] = [
  'rate_limited',
  'aborted',
  'provider_error',
  'refused',
];

/** The inputs of applySessionResult. */
export interface ApplyInput {
  run: RunRecord;
  /** Every feature of the run, in list order. */
  features: FeatureState[];
  /** The session as recorded at its start (or a stand-in when the start was never recorded). */
  session: SessionRecord;
  result: SessionResult;
  /** A new feature list written by this (initializer) session, applied in the same step. */
  newFeatures?: Feature[];
  now: string;
}

/** What applySessionResult changes: the new run, the features that changed, the finished session and events. */
export interface ApplyOutput {
  run: RunRecord;
  features: FeatureState[];
  changed: FeatureState[];
  replaced: boolean;
  session: SessionRecord;
  events: RunEvent[];
}

/**
 * The run after one session result (pure). Updates counters and costs; applies verdicts to features
 * (pass, fail → attempts → blocked, regression flips back to failing, blocked → retried then blocked);
 * a missing verdict of a counted evaluator session is `blocked`, never `pass`.
 */
export function applySessionResult(input: ApplyInput): ApplyOutput {
  const { result, now } = input;
  const seq = input.session.seq;
  const counted = !NOT_COUNTED_OUTCOMES.includes(result.outcome);
  const counters = countSession(input.run.counters, result, input.run.config.budgets);
  const events: RunEvent[] = [];
  const changed = new Set<string>();
  const features = featuresAfter(input);
  const replaced = input.newFeatures !== undefined;
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  if (counted && result.role === 'initializer') countInitializer(counters, result, features.length);
  if (result.appStart) events.push(appStartFailedEvent(input, result.appStart));
  // A session that ended to ask a person is not one of the attempt's generator sessions: the answer starts afresh.
  if (counted && result.role === 'generator' && !result.askedQuestion) {
    for (const id of result.featureIds) bump(byId.get(id), changed);
  }
  // An evaluation that did not count (interrupted, a provider failure), or that ended to ask a person, judged only
  // what it submitted: those verdicts are in the workspace already; the features it did not judge get no record.
  const verdicts: VerdictRecord[] =
    result.role !== 'evaluator'
      ? []
      : counted && !result.askedQuestion
        ? withMissingVerdicts(input, byId)
        : result.verdicts;
  const regressionChecked = applyVerdicts(input, verdicts, byId, { counters, events, changed });
  // A new feature list: when lanes will not pay for it, say so once (run prints the event).
  const estimate = replaced ? lanesEstimateEvent(input.run, features, now) : undefined;
  if (estimate) events.push(estimate);
  for (const event of blockDependents(features, { runId: input.run.id, at: now, seq })) {
    events.push(event);
    if (event.type === 'feature.blocked') changed.add(event.featureId);
  }
  // The harness got through a whole session: its error (if any) is behind it. Work landed or a feature passed: progress.
  Object.assign(counters, { repeatedHarnessErrors: 0, lastHarnessError: null });
  if (counted && (result.commits.length > 0 || counters.lastPassSeq > input.run.counters.lastPassSeq))
    Object.assign(counters, withProgress(counters, now, seq));
  const run: RunRecord = { ...input.run, counters, updatedAt: now };
  if (
    regressionChecked &&
    sweepCandidates({ run, features }).length === 0 &&
    counters.passesSinceLastRegression > 0
  ) {
    counters.passesSinceLastRegression = 0;
    counters.sweeps += 1;
  }
  for (const violation of result.violations) {
    events.push({ type: 'integrity.violation', runId: run.id, at: now, seq, violation });
  }
  noteSession(run, input, byId, counted);
  run.features = summarizeFeatures(features);
  const session = finishedSession(input.session, result, verdicts, now);
  events.unshift(sessionFinishedEvent(run.id, seq, result, now));
  const changedFeatures = replaced ? features : features.filter((feature) => changed.has(feature.id));
  return { run, features, changed: changedFeatures, replaced, session, events };
}

/** Copies of the run's features, or the new list (keeping each known feature's state) when the session wrote one. */
function featuresAfter(input: ApplyInput): FeatureState[] {
  const features = input.features.map((feature) => ({ ...feature }));
  if (!input.newFeatures) return features;
  const previous = new Map(features.map((feature) => [feature.id, feature]));
  return input.newFeatures.map((feature, index) => toFeatureState(feature, index, previous.get(feature.id)));
}

/** The counters after one more session: its cost (or unpriced tokens) and provider errors. */
function countSession(before: RunCounters, result: SessionResult, budgets: Budgets): RunCounters {
  const counters: RunCounters = { ...before };
  counters.sessions += 1;
  if (result.costUsd === null) {
    counters.costUnknownSessions += 1;
    const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = result.usage;
    counters.unpricedTokens += inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens;
  } else counters.costUsd += result.costUsd;
  countProviderErrors(counters, result, budgets);
  return counters;
}

/** An initializer that ended without a feature list counts as failed, with the reason kept. */
function countInitializer(counters: RunCounters, result: SessionResult, featureCount: number): void {
  const worked = result.outcome === 'completed' && featureCount > 0;
  counters.initializerFailures += worked ? 0 : 1;
  counters.lastInitializerFailure = worked ? null : (result.reason ?? `initializer ${result.outcome}`);
}

/** What applying verdicts updates in place. */
interface VerdictEffects {
  counters: RunCounters;
  events: RunEvent[];
  changed: Set<string>;
}

/** Applies the session's verdicts (skipping ones older than a feature's last); true if one checked a passing feature. */
function applyVerdicts(
  input: ApplyInput,
  verdicts: readonly VerdictRecord[],
  byId: ReadonlyMap<string, FeatureState>,
  { counters, events, changed }: VerdictEffects,
): boolean {
  const { now } = input;
  const seq = input.session.seq;
  let regressionChecked = false;
  for (const verdict of verdicts) {
    events.push(...ungroundedEvents(verdict, input.run.id, seq, now));
    if (verdict.unrecordable) {
      const { featureId, unrecordable: reason } = verdict;
      events.push({ type: 'check.unrecordable', runId: input.run.id, at: now, seq, featureId, reason });
    }
    const feature = byId.get(verdict.featureId);
    if (!feature || feature.lastVerdictSeq > seq) continue;
    if (feature.passes) regressionChecked = true;
    applyVerdict(feature, verdict, {
      seq,
      now,
      lane: input.session.lane !== null,
      runId: input.run.id,
      budgets: input.run.config.budgets,
      counters,
      events,
    });
    changed.add(feature.id);
  }
  return regressionChecked;
}

/** Notes the session in the run: on its lane (if any) and as the run's last session when it counted. */
function noteSession(
  run: RunRecord,
  input: ApplyInput,
  byId: ReadonlyMap<string, FeatureState>,
  counted: boolean,
): void {
  const { result } = input;
  const seq = input.session.seq;
  if (input.session.lane !== null)
    run.lanes = updateLane(
      run.lanes,
      input.session.lane,
      byId,
      counted && { seq, role: result.role, outcome: result.outcome },
    );
  if (counted && seq > (run.lastSession?.seq ?? 0)) {
    run.lastSession = { seq, role: result.role, featureIds: result.featureIds, outcome: result.outcome };
  }
}

function sessionFinishedEvent(runId: string, seq: number, result: SessionResult, now: string): RunEvent {
  return {
    type: 'session.finished',
    runId,
    at: now,
    seq,
    role: result.role,
    featureIds: result.featureIds,
    outcome: result.outcome,
    reason: result.reason ?? null,
    costUsd: result.costUsd,
    durationMs: result.durationMs,
  };
}

/** The lane after one of its sessions: its last step noted; released once its feature is blocked (or passes). */
function updateLane(
  lanes: readonly LaneRecord[],
  laneNumber: number,
  byId: ReadonlyMap<string, FeatureState>,
  last: LaneLastStep | false,
): LaneRecord[] {
  return lanes.flatMap((lane) => {
    if (lane.lane !== laneNumber) return [lane];
    const feature = byId.get(lane.featureId);
    if (!feature || feature.blocked || feature.passes) return [];
    return [last ? { ...lane, last } : lane];
  });
}

/**
 * Provider errors and refusals in a row fail the run after `maxConsecutiveProviderErrors`; a failure that
 * will not go away by itself (no credit, bad key, unknown model) fails it at once. The last message (the
 * provider's words and the fix) is kept for the failure reason.
 */
function countProviderErrors(counters: RunCounters, result: SessionResult, budgets: Budgets): void {
  if (result.outcome === 'provider_error' || result.outcome === 'refused') {
    const fatal = RUN_FATAL_FAILURES.some((kind) => kind === result.providerFailure?.kind);
    counters.consecutiveProviderErrors = fatal
      ? Math.max(counters.consecutiveProviderErrors + 1, budgets.maxConsecutiveProviderErrors)
      : counters.consecutiveProviderErrors + 1;
    counters.lastProviderError = result.providerFailure?.message ?? result.reason ?? result.outcome;
  } else if (!NOT_COUNTED_OUTCOMES.includes(result.outcome)) {
    counters.consecutiveProviderErrors = 0;
    counters.lastProviderError = null;
  }
}

function bump(feature: FeatureState | undefined, changed: Set<string>): void {
  if (!feature) return;
  feature.generatorSessions += 1;
  changed.add(feature.id);
}

/** The session's verdicts plus a `blocked` one for each feature it was asked to check but gave no verdict on. */
function withMissingVerdicts(input: ApplyInput, byId: Map<string, FeatureState>): VerdictRecord[] {
  const { result, now } = input;
  const given = new Set(result.verdicts.map((verdict) => verdict.featureId));
  const missing = result.featureIds
    .filter((id) => !given.has(id) && byId.has(id))
    .map(
      (id): VerdictRecord => ({
        featureId: id,
        verdict: 'blocked',
        steps: [],
        issues: [],
        reason: result.reason ?? `no verdict submitted (session ${result.outcome})`,
        mode: byId.get(id)?.passes ? 'regression' : 'evaluate',
        runId: input.run.id,
        session: input.session.seq,
        at: now,
        evidence: [],
      }),
    );
  return [...result.verdicts, ...missing];
}

function finishedSession(
  session: SessionRecord,
  result: SessionResult,
  verdicts: VerdictRecord[],
  now: string,
): SessionRecord {
  return {
    ...session,
    role: result.role,
    featureIds: result.featureIds.length ? result.featureIds : session.featureIds,
    finishedAt: now,
    outcome: result.outcome,
    reason: result.reason ?? null,
    model: result.model,
    usage: result.usage,
    costUsd: result.costUsd,
    durationMs: result.durationMs,
    steps: result.steps,
    startCommit: result.startCommit,
    endCommit: result.endCommit,
    commits: result.commits,
    violations: result.violations.length,
    verdicts: verdicts.map((verdict) => ({
      featureId: verdict.featureId,
      verdict: verdict.verdict,
      mode: verdict.mode,
    })),
  };
}

/** The `app.start_failed` event of a session whose app did not start (an evaluation, or after the initializer). */
function appStartFailedEvent(input: ApplyInput, failure: AppStartFailure): RunEvent {
  const { result } = input;
  return {
    type: 'app.start_failed',
    runId: input.run.id,
    at: input.now,
    seq: input.session.seq,
    role: result.role,
    featureIds: result.featureIds,
    exitCode: failure.exitCode,
    logFile: failure.logFile,
    logTail: failure.logTail,
    reason: firstLine(result.reason),
  };
}

/** One `verdict.ungrounded` event per pass of this verdict's evaluation that the harness refused. */
function ungroundedEvents(verdict: VerdictRecord, runId: string, seq: number, now: string): RunEvent[] {
  const failures = verdict.ungrounded ?? [];
  return failures.map((failure, index) => ({
    type: 'verdict.ungrounded' as const,
    runId,
    at: now,
    seq,
    featureId: verdict.featureId,
    attempt: failure.attempt,
    problems: failure.problems,
    final: verdict.verdict === 'blocked' && index === failures.length - 1,
  }));
}
