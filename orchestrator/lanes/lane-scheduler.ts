import { z } from 'zod';
import { checkStopConditions } from '../budgets.js';
import { blockedDependencies, dependenciesMet } from '../dependencies.js';
import { evaluatesAfterAnswer, waitForAnswers, waitingFeatureIds } from '../question-schedule.js';
import {
  ACTIVE_STATUSES,
  type FeatureState,
  type RunState,
  sweepCandidates,
  windowSweepCandidates,
} from '../run/run-state.js';
import type { NextAction } from '../scheduler.js';
import type { LaneRecord } from './lanes.js';

/** The run's own slot (initializer, sweeps, the merge queue); lanes are 1…2N (N at work, up to N waiting to merge). */
export const MAIN_SLOT = 0;

/** A step of a run in lanes mode: a session action, or a merge of a lane's passed feature into the run branch. */
export const LaneAction = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('initialize') }),
  z.object({ kind: z.literal('generate'), featureId: z.string() }),
  z.object({ kind: z.literal('evaluate'), featureId: z.string() }),
  z.object({ kind: z.literal('regress'), featureIds: z.array(z.string()).min(1) }),
  /**
   * Every lane waiting to merge, merged in one step and checked once (a merge train; see docs/lanes.md); with
   * `fullSweep`, every passing feature's check is replayed first (none waiting: the sweep alone).
   */
  z.object({
    kind: z.literal('merge'),
    lanes: z.array(z.object({ lane: z.number().int().positive(), featureId: z.string() })),
    fullSweep: z.boolean().optional(),
  }),
]);
export type LaneAction = z.infer<typeof LaneAction>;

/**
 * Lane numbers per configured lane: N lanes at work and up to N more whose features wait for the merge queue.
 */
export const LANE_NUMBERS_PER_LANE = 2;

/** One action for one slot: `slot` 0 is the run's own, 1…2N a lane (`assign`: the lane takes a new feature). */
export interface SlotAction {
  slot: number;
  action: LaneAction;
  assign?: boolean;
}

/** What the run does next in lanes mode: change its status, or start these actions (possibly none: all busy). */
export type LaneSchedule =
  | { kind: 'run'; action: Extract<NextAction, { kind: 'finish' | 'pause' | 'fail' | 'wait' }> }
  | { kind: 'work'; actions: SlotAction[] };

/**
 * The next actions of a run with `config.lanes` lanes (pure). `busy` holds the slots whose job is still in
 * flight (0 = the run's own). In order:
 * 1. the run-level rules of `nextAction` (not active → wait; all done → finish, only once no lane holds a
 *    feature and nothing is in flight; budgets → pause; provider errors → fail; no feature list → initialize,
 *    alone);
 * 2. the run's slot, when free: the merge queue first (every lane whose feature passed on its branch, or whose
 *    generator resolved a conflict the queue sent back; the lane sent back most often first, then in lane order), else
 *    a nightly-window sweep, else a regression sweep when due (before finishing only once every lane is empty);
 * 3. every free lane that holds a feature: its follow-up (generator done → evaluate; failed, blocked by the app,
 *    or sent back by the merge queue → generate; `blocked` verdict → evaluate again);
 * 4. lanes without a feature: the next failing features in list order whose `depends_on` pass on the run branch
 *    and that no lane holds. A feature waiting on one in flight waits for its merge.
 * A feature with an open question keeps its lane but gets no step until it is answered (then an evaluation, when an
 * evaluator asked); when nothing else can run and nothing is in flight, the run waits (then pauses `questions`, as in
 * `nextAction`).
 */
export function nextLaneActions(state: RunState, now: Date, busy: ReadonlySet<number>): LaneSchedule {
  const { run, features } = state;
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  const held = new Set(run.lanes.map((lane) => lane.featureId));
  const blockedBy = blockedDependencies(features);
  const pending = features.filter(
    (feature) => !feature.passes && !feature.blocked && !blockedBy.has(feature.id),
  );
  const candidates = sweepCandidates(state);
  const idle = busy.size === 0 && run.lanes.length === 0;
  const runLevel = runLevelAction(state, now, { idle, pending, candidates });
  if (runLevel) return runLevel;
  if (features.length === 0) {
    return busy.size > 0
      ? { kind: 'work', actions: [] }
      : { kind: 'work', actions: [{ slot: MAIN_SLOT, action: { kind: 'initialize' } }] };
  }
  const waiting = waitingFeatureIds(run);
  const actions: SlotAction[] = [];
  const merging = new Set<number>();
  if (!busy.has(MAIN_SLOT)) {
    const main = mainSlotAction(state, now, busy, { pending, candidates });
    if (main) {
      actions.push({ slot: MAIN_SLOT, action: main });
      if (main.kind === 'merge') for (const { lane } of main.lanes) merging.add(lane);
    }
  }
  const limit = run.config.lanes;
  const toBeMerged = (lane: LaneRecord) =>
    byId.get(lane.featureId)?.mergePending === true || awaitsMerge(lane);
  const inSession = run.lanes.filter((lane) => busy.has(lane.lane) && !toBeMerged(lane)).length;
  const followUps = laneFollowUps(state, byId, { busy, merging, waiting, inSession });
  actions.push(...followUps);
  const sessions = inSession + followUps.length;
  // A lane whose feature waits for the merge queue does not hold a place: another lane starts the next feature
  // meanwhile (pipelining), up to `lanes` more waiting (lane numbers 1…2N), so the queue paces no lane.
  const used = new Set(run.lanes.map((lane) => lane.lane));
  const holding = run.lanes.filter((lane) => !toBeMerged(lane)).length;
  const free = Array.from({ length: LANE_NUMBERS_PER_LANE * limit }, (_, index) => index + 1)
    .filter((lane) => !used.has(lane) && !busy.has(lane))
    .slice(0, Math.max(0, Math.min(limit - holding, limit - sessions)));
  const workable = pending.filter((feature) => !waiting.has(feature.id));
  const ready = workable.filter((feature) => !held.has(feature.id) && dependenciesMet(feature, byId));
  // Nothing can start and nothing is in flight (a dependency cycle): take the first open feature anyway.
  if (ready.length === 0 && idle && actions.length === 0 && workable[0]) ready.push(workable[0]);
  for (const feature of ready) {
    const slot = free.shift();
    if (slot === undefined) break;
    actions.push({
      slot,
      action: workOn(feature, run.config.budgets.maxGeneratorSessionsPerAttempt),
      assign: true,
    });
  }
  const waitingRun = actions.length === 0 && busy.size === 0 ? waitForAnswers(run, now) : undefined;
  return waitingRun ? { kind: 'run', action: waitingRun } : { kind: 'work', actions };
}

/**
 * The next step of every lane that holds a feature and is free, in lane order. Lanes the merge queue sent back can
 * make more than `lanes` hold a feature: sessions stay within `lanes`, the sent-back lanes (older features) first.
 */
function laneFollowUps(
  state: RunState,
  byId: ReadonlyMap<string, FeatureState>,
  slots: {
    busy: ReadonlySet<number>;
    merging: ReadonlySet<number>;
    waiting: ReadonlySet<string>;
    /** Lane sessions in flight now (lanes waiting to merge not counted). */
    inSession: number;
  },
): SlotAction[] {
  const { run } = state;
  const { busy, merging, waiting, inSession } = slots;
  const due = run.lanes.filter((lane) => {
    const feature = byId.get(lane.featureId);
    if (busy.has(lane.lane) || merging.has(lane.lane) || !feature) return false;
    if (feature.passes || feature.blocked || feature.mergePending || waiting.has(feature.id)) return false;
    return !awaitsMerge(lane);
  });
  // Sent back by the merge queue at least once: an older feature than any a lane took since.
  const sentBack = (lane: LaneRecord) => (lane.mergeSetbacks > 0 ? 0 : 1);
  const chosen = new Set(
    [...due]
      .sort((a, b) => sentBack(a) - sentBack(b) || a.lane - b.lane)
      .slice(0, Math.max(0, run.config.lanes - inSession))
      .map((lane) => lane.lane),
  );
  return due
    .filter((lane) => chosen.has(lane.lane))
    .sort((a, b) => a.lane - b.lane)
    .map((lane) => {
      const feature = byId.get(lane.featureId) as FeatureState;
      return {
        slot: lane.lane,
        action: evaluatesAfterAnswer(run, feature)
          ? { kind: 'evaluate', featureId: feature.id }
          : laneFollowUp(lane, feature, run.config.budgets.maxGeneratorSessionsPerAttempt),
      };
    });
}

function runLevelAction(
  state: RunState,
  now: Date,
  context: { idle: boolean; pending: FeatureState[]; candidates: FeatureState[] },
): LaneSchedule | undefined {
  const { run, features } = state;
  if (!ACTIVE_STATUSES.includes(run.status)) {
    const why = run.pausedReason ? ` (${run.pausedReason}${run.detail ? `: ${run.detail}` : ''})` : '';
    return { kind: 'run', action: { kind: 'wait', reason: `run is ${run.status}${why}` } };
  }
  const allDone = features.length > 0 && context.pending.length === 0 && context.candidates.length === 0;
  // Lanes mode: a full sweep after the last merge comes before the run is declared done.
  if (allDone && context.idle && run.counters.fullSweep.mergesSince === 0)
    return { kind: 'run', action: { kind: 'finish' } };
  const stop = checkStopConditions(state, now);
  if (stop) return { kind: 'run', action: { kind: 'pause', reason: stop.reason, detail: stop.detail } };
  const budgets = run.config.budgets;
  if (run.counters.consecutiveProviderErrors >= budgets.maxConsecutiveProviderErrors) {
    const last = run.counters.lastProviderError ?? 'sessions in a row ended with a fatal provider error';
    return {
      kind: 'run',
      action: { kind: 'fail', reason: `provider error: ${last} (fix it, then resume the run)` },
    };
  }
  if (features.length === 0 && run.counters.initializerFailures >= budgets.maxInitializerAttempts) {
    const last = run.counters.lastInitializerFailure ?? 'no valid feature list';
    return {
      kind: 'run',
      action: {
        kind: 'fail',
        reason: `the initializer failed ${run.counters.initializerFailures} times; the last time: ${last}`,
      },
    };
  }
  return undefined;
}

/** The run slot's next job: a merge (a full sweep first when due), a window sweep, or a due regression sweep. */
function mainSlotAction(
  state: RunState,
  now: Date,
  busy: ReadonlySet<number>,
  context: { pending: FeatureState[]; candidates: FeatureState[] },
): LaneAction | undefined {
  const { run, features } = state;
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  // The lane sent back most often goes first: in a train, the earlier lanes win the conflicts.
  const toMerge = [...run.lanes]
    .sort((a, b) => b.mergeSetbacks - a.mergeSetbacks || a.lane - b.lane)
    .filter((lane) => !busy.has(lane.lane) && (byId.get(lane.featureId)?.mergePending || awaitsMerge(lane)))
    .map(({ lane, featureId }) => ({ lane, featureId }));
  const last = context.pending.length === 0 && run.lanes.length === 0;
  if (fullSweepDue(run, now) || (last && run.counters.fullSweep.mergesSince > 0))
    return { kind: 'merge', lanes: toMerge, fullSweep: true };
  if (toMerge.length > 0) return { kind: 'merge', lanes: toMerge };
  const batch = run.config.regressBatchSize;
  const windowSweep = windowSweepCandidates(state);
  if (windowSweep.length > 0)
    return { kind: 'regress', featureIds: windowSweep.slice(0, batch).map((f) => f.id) };
  // The full sweeps replay every recorded check; a regression session is left for what they could not replay.
  const due = last;
  if (context.candidates.length > 0 && due)
    return { kind: 'regress', featureIds: context.candidates.slice(0, batch).map((f) => f.id) };
  return undefined;
}

/**
 * Whether a full sweep is due (lanes mode): merges since the last one, and either `fullSweepEveryMinutes` since it
 * (or since the run started) passed, or `fullSweepEveryMerges` of them came and the time since it leaves the sweeps
 * no more than `fullSweepMaxShare` of the time. Why the share: a sweep replays every passing check in the merge
 * queue's step, so at 200 features one every few merges would make the queue grow with the app again (issue 29).
 */
export function fullSweepDue(run: RunState['run'], now: Date): boolean {
  const { mergesSince, at, durationMs } = run.counters.fullSweep;
  if (mergesSince === 0) return false;
  const config = run.config.mergeChecks;
  const elapsed = now.getTime() - Date.parse(at ?? run.createdAt);
  if (elapsed >= config.fullSweepEveryMinutes * 60_000) return true;
  const spacing = ((durationMs ?? 0) * (1 - config.fullSweepMaxShare)) / config.fullSweepMaxShare;
  return mergesSince >= config.fullSweepEveryMerges && elapsed >= spacing;
}

/**
 * Whether the lane's generator resolved a conflict the merge queue sent back (or its merge then failed to run): it
 * goes back to the queue with no evaluator session, its feature having passed before the conflict (issue 29).
 */
export function awaitsMerge(lane: LaneRecord): boolean {
  if (!lane.resolvingConflict || !lane.last) return false;
  const { role, outcome } = lane.last;
  return (role === 'generator' && outcome === 'completed') || (role === 'merge' && outcome === 'error');
}

/** What a lane does next with its feature, from its last counted step. */
export function laneFollowUp(
  lane: LaneRecord,
  feature: FeatureState,
  maxGeneratorSessions: number,
): LaneAction {
  const last = lane.last;
  if (last?.role === 'generator' && last.outcome === 'completed' && feature.generatorSessions > 0)
    return { kind: 'evaluate', featureId: feature.id };
  if (last?.role === 'evaluator' && feature.lastVerdict === 'blocked') {
    return feature.lastVerdictCause === 'app_did_not_start'
      ? { kind: 'generate', featureId: feature.id }
      : { kind: 'evaluate', featureId: feature.id };
  }
  if (last?.role === 'merge' && last.outcome !== 'error') return { kind: 'generate', featureId: feature.id };
  return workOn(feature, maxGeneratorSessions);
}

function workOn(feature: FeatureState, maxGeneratorSessions: number): LaneAction {
  return feature.generatorSessions >= maxGeneratorSessions
    ? { kind: 'evaluate', featureId: feature.id }
    : { kind: 'generate', featureId: feature.id };
}
