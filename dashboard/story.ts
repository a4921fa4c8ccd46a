/**
 * The run's story (pure): the run record, its features and its session history condensed into the groups a
 * person reads at night (see story-schema.ts). Every step is one pass over the features or the sessions, so a
 * story of 60 features and 300 sessions costs about ten of 6 and 30.
 */
import { openQuestions } from '../handoff/questions.js';
import { describeNextAction } from '../orchestrator/action-words.js';
import { blockedDependencies, dependenciesMet } from '../orchestrator/dependencies.js';
import { nextLaneActions } from '../orchestrator/lanes/lane-scheduler.js';
import { usesLanes } from '../orchestrator/lanes/lanes.js';
import { waitingFeatureIds } from '../orchestrator/question-schedule.js';
import {
  ACTIVE_STATUSES,
  type FeatureState,
  knownCostUsd,
  type RunState,
  type SessionRecord,
} from '../orchestrator/run/run-state.js';
import { nextAction } from '../orchestrator/scheduler.js';
import type { SessionOutcome } from '../roles/session-result.js';
import { type RunStory, type StoryCounts, StoryRunning } from './story-schema.js';

/** What the story is built from: the run's state, its whole session history (any order) and the time. */
export interface StoryInput {
  state: RunState;
  sessions: readonly SessionRecord[];
  /** The newest `nightly.summary` of the event log (null: none). */
  lastWindow: RunStory['lastWindow'];
  now: Date;
}

/** Upcoming features named by id; the rest are counted. */
const UPCOMING_SHOWN = 5;
/** The timeline never has more buckets than this (longer runs get longer buckets). */
const MAX_BUCKETS = 24;
const HOUR_MS = 3_600_000;
/** Outcomes of sessions that left nothing usable behind. */
const WASTED: ReadonlySet<SessionOutcome> = new Set([
  'failed',
  'rate_limited',
  'provider_error',
  'refused',
  'aborted',
]);

/** Builds the story of a run (pure: same input, same story). */
export function buildRunStory({ state, sessions, lastWindow, now }: StoryInput): RunStory {
  const { run, features } = state;
  const active = ACTIVE_STATUSES.includes(run.status);
  const running = active ? sessions.filter((session) => session.finishedAt === null) : [];
  const busyFeatures = new Set([
    ...running.flatMap((session) => session.featureIds),
    ...run.lanes.map((lane) => lane.featureId),
  ]);
  const waiting = waitingFeatureIds(run);
  const counts = countFeatures(features, waiting, busyFeatures);
  const cost = knownCostUsd(run.counters);
  return {
    runId: run.id,
    status: run.status,
    pausedReason: run.pausedReason,
    detail: run.detail,
    at: now.toISOString(),
    counts,
    stuck: {
      blocked: features
        .filter((feature) => feature.blocked && !feature.passes)
        .map((feature) => ({
          featureId: feature.id,
          description: feature.description,
          reason: feature.blockedReason ?? 'blocked',
        })),
      struggling: strugglingFeatures(features, run.config.budgets.maxAttemptsPerFeature),
      questions: openQuestions(run.questions)
        .map(({ id, featureId, question, askedAt }) => ({ id, featureId, question, askedAt }))
        .sort((a, b) => a.askedAt.localeCompare(b.askedAt)),
    },
    cost: {
      usd: cost,
      perPassingUsd: cost !== null && counts.passing > 0 ? round(cost / counts.passing) : null,
      unknownSessions: run.counters.costUnknownSessions,
      capUsd: run.config.budgets.maxCostUsd,
    },
    sessions: {
      finished: run.counters.sessions,
      running: running.length,
      wasted: sessions.filter((session) => session.outcome !== null && WASTED.has(session.outcome)).length,
      max: run.config.budgets.maxSessions,
    },
    running: running.map((session) =>
      StoryRunning.parse({
        seq: session.seq,
        role: session.role,
        kind: session.kind,
        featureIds: session.featureIds,
        lane: session.lane,
        startedAt: session.startedAt,
      }),
    ),
    next: nextOf(state, running, busyFeatures, waiting, now),
    lastWindow,
    timeline: timelineOf(sessions),
  };
}

/** Every feature in one group: passing, blocked, waiting, in progress, failing (evaluated) or not started. */
function countFeatures(
  features: readonly FeatureState[],
  waiting: ReadonlySet<string>,
  busy: ReadonlySet<string>,
): StoryCounts {
  const counts: StoryCounts = {
    total: features.length,
    passing: 0,
    failing: 0,
    blocked: 0,
    waiting: 0,
    inProgress: 0,
    notStarted: 0,
  };
  for (const feature of features) {
    if (feature.passes) counts.passing++;
    else if (feature.blocked) counts.blocked++;
    else if (waiting.has(feature.id)) counts.waiting++;
    else if (busy.has(feature.id) || feature.mergePending) counts.inProgress++;
    else if (feature.attempts > 0 || feature.lastVerdict !== null) counts.failing++;
    else counts.notStarted++;
  }
  return counts;
}

/** Open features with at least half the failed evaluations that block one, most failures first. */
function strugglingFeatures(
  features: readonly FeatureState[],
  limit: number,
): RunStory['stuck']['struggling'] {
  const threshold = Math.max(1, Math.ceil(limit / 2));
  return features
    .filter((feature) => !feature.passes && !feature.blocked && feature.attempts >= threshold)
    .sort((a, b) => b.attempts - a.attempts || a.position - b.position)
    .map((feature) => ({
      featureId: feature.id,
      description: feature.description,
      failedEvaluations: feature.attempts,
      limit,
    }));
}

/** The planner's next step and the features next in line. */
function nextOf(
  state: RunState,
  running: readonly SessionRecord[],
  busy: ReadonlySet<string>,
  waiting: ReadonlySet<string>,
  now: Date,
): RunStory['next'] {
  const { run, features } = state;
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  const blockedBy = blockedDependencies(features);
  const ready = features.filter(
    (feature) =>
      !feature.passes &&
      !feature.blocked &&
      !feature.mergePending &&
      !busy.has(feature.id) &&
      !waiting.has(feature.id) &&
      !blockedBy.has(feature.id) &&
      dependenciesMet(feature, byId),
  );
  return {
    step: ACTIVE_STATUSES.includes(run.status) ? plannerStep(state, running, now) : null,
    upcoming: ready.slice(0, UPCOMING_SHOWN).map((feature) => feature.id),
    more: Math.max(0, ready.length - UPCOMING_SHOWN),
  };
}

/** What the scheduler starts next: the serial planner's step, or each free slot's step in lanes mode. */
function plannerStep(state: RunState, running: readonly SessionRecord[], now: Date): string {
  if (usesLanes(state.run.config)) {
    const busy = new Set(running.map((session) => session.lane ?? 0));
    const schedule = nextLaneActions(state, now, busy);
    if (schedule.kind === 'run') return describeNextAction(schedule.action);
    if (schedule.actions.length === 0)
      return 'nothing can start now: the next step comes when a session or a merge ends';
    return schedule.actions
      .map(({ slot, action }) => `${slot === 0 ? 'run' : `lane ${slot}`}: ${describeNextAction(action)}`)
      .join('; ');
  }
  const current = running.at(-1);
  if (current) return `session ${current.seq} (${current.role}) ends, then the planner decides`;
  return describeNextAction(nextAction(state, now));
}

/** Sessions, passes, failures and cost per bucket of finished sessions, empty buckets included. */
function timelineOf(sessions: readonly SessionRecord[]): RunStory['timeline'] {
  const finished = sessions.filter(
    (session): session is SessionRecord & { finishedAt: string } => session.finishedAt !== null,
  );
  if (finished.length === 0) return { hours: 1, buckets: [] };
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const session of finished) {
    const at = Date.parse(session.finishedAt);
    first = Math.min(first, at);
    last = Math.max(last, at);
  }
  const start = Math.floor(first / HOUR_MS) * HOUR_MS;
  const hours = Math.max(1, Math.ceil((last - start + 1) / HOUR_MS / MAX_BUCKETS));
  const width = hours * HOUR_MS;
  const count = Math.floor((last - start) / width) + 1;
  const buckets = Array.from({ length: count }, (_, index) => ({
    start: new Date(start + index * width).toISOString(),
    sessions: 0,
    passed: 0,
    failed: 0,
    costUsd: 0,
  }));
  for (const session of finished) {
    const bucket = buckets[Math.floor((Date.parse(session.finishedAt) - start) / width)]!;
    bucket.sessions++;
    bucket.costUsd += session.costUsd ?? 0;
    for (const verdict of session.verdicts) {
      if (verdict.verdict === 'pass' && verdict.mode === 'evaluate') bucket.passed++;
      if (verdict.verdict === 'fail') bucket.failed++;
    }
  }
  for (const bucket of buckets) bucket.costUsd = round(bucket.costUsd);
  return { hours, buckets };
}

/** Float sums of costs drift in the last digits; a millionth of a dollar is all anyone reads. */
function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
