import { z } from 'zod';
import { AgentEvent } from '../agent/events.js';
import { ReplayTally } from '../evaluation/replay-tally.js';
import { VerdictValue } from '../handoff/formats.js';
import { Question } from '../handoff/questions.js';
import { HumanNoteKind } from '../roles/human-notes.js';
import { IntegrityViolation, RoleName, SessionOutcome } from '../roles/session-result.js';
import { MergeOutcome } from './lanes/lanes.js';
import { LanesEstimate } from './lanes/lanes-payoff.js';
import { PausedReason, RunStatus, SessionKind, Workspace } from './run/run-state.js';

const base = { runId: z.string(), at: z.string() };

/** What changed during a scheduled window: the `nightly.summary` event's fields and the webhook's `summary`. */
export const WindowSummary = z.object({
  /** Start of the summarized window. */
  since: z.string(),
  newlyPassing: z.array(z.string()),
  newlyFailing: z.array(z.string()),
  blocked: z.array(z.string()),
  /** Why each blocked feature is blocked (older events have none). */
  blockedReasons: z.array(z.object({ featureId: z.string(), reason: z.string() })).default([]),
  costUsd: z.number(),
  passing: z.number().int(),
  total: z.number().int(),
});
export type WindowSummary = z.infer<typeof WindowSummary>;

/**
 * Everything a run reports, one discriminated union on `type`, validated on append and on read.
 * Agent-loop events are wrapped as `{ type: 'agent', seq, event }` (their `session.started` would clash with ours).
 */
export const RunEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run.created'),
    ...base,
    spec: z.object({ path: z.string(), name: z.string() }),
    workspace: Workspace,
  }),
  z.object({
    type: z.literal('run.status'),
    ...base,
    status: RunStatus,
    previous: RunStatus,
    reason: PausedReason.nullable(),
    detail: z.string().nullable(),
  }),
  z.object({
    type: z.literal('session.queued'),
    ...base,
    seq: z.number().int(),
    jobId: z.string(),
    role: RoleName,
    kind: SessionKind,
    featureIds: z.array(z.string()),
  }),
  z.object({
    type: z.literal('session.started'),
    ...base,
    seq: z.number().int(),
    jobId: z.string(),
    role: RoleName,
    featureIds: z.array(z.string()),
    workerId: z.string(),
    lane: z.number().int().positive().optional(),
  }),
  z.object({
    type: z.literal('session.finished'),
    ...base,
    seq: z.number().int(),
    role: RoleName,
    featureIds: z.array(z.string()),
    outcome: SessionOutcome,
    reason: z.string().nullable(),
    costUsd: z.number().nullable(),
    durationMs: z.number(),
  }),
  z.object({
    type: z.literal('verdict.applied'),
    ...base,
    seq: z.number().int(),
    featureId: z.string(),
    verdict: VerdictValue,
    mode: z.enum(['evaluate', 'regression']),
    passes: z.boolean(),
    attempts: z.number().int(),
    /** Why, for a verdict that is not a pass: a `fail`'s first issue, a `blocked` verdict's reason (one line, cut). */
    reason: z.string().optional(),
  }),
  /** A pass the harness found ungrounded (evaluation/grounding.ts): sent back, or (final) recorded as blocked. */
  z.object({
    type: z.literal('verdict.ungrounded'),
    ...base,
    seq: z.number().int(),
    featureId: z.string(),
    attempt: z.number().int(),
    problems: z.array(z.string()),
    final: z.boolean(),
  }),
  /** A pass kept without a recorded check (nothing the evaluator did could be replayed): no sweep can replay it. */
  z.object({
    type: z.literal('check.unrecordable'),
    ...base,
    seq: z.number().int(),
    featureId: z.string(),
    reason: z.string(),
  }),
  /**
   * Recorded checks replayed, one event per batch: where (`merge`, `sweep`, `gate`, `full_sweep`) and the features
   * whose check held or went red (the `nightshift_check_replays_total` metric counts them).
   */
  z.object({ type: z.literal('check.replayed'), ...base, seq: z.number().int(), ...ReplayTally.shape }),
  /** The app did not answer after `init.sh` (evaluation, or the harness's start after the initializer). */
  z.object({
    type: z.literal('app.start_failed'),
    ...base,
    seq: z.number().int(),
    role: RoleName,
    featureIds: z.array(z.string()),
    exitCode: z.number().int().nullable(),
    /** The session's app log, relative to the data dir. */
    logFile: z.string(),
    logTail: z.array(z.string()),
    reason: z.string(),
  }),
  z.object({
    type: z.literal('feature.blocked'),
    ...base,
    seq: z.number().int().nullable(),
    featureId: z.string(),
    reason: z.string(),
  }),
  z.object({
    type: z.literal('feature.regressed'),
    ...base,
    seq: z.number().int(),
    featureId: z.string(),
    issues: z.array(z.string()),
  }),
  z.object({ type: z.literal('feature.retried'), ...base, featureId: z.string() }),
  /** A person steered a feature (`nightshift note|reopen|unblock`, the dashboard, the HTTP API). */
  z.object({
    type: z.literal('feature.steered'),
    ...base,
    featureId: z.string(),
    action: HumanNoteKind,
    /** The note, the reopen reason, or the unblock's note (null: an unblock without one). */
    text: z.string().nullable(),
    /** Who: `cli:<os user>` or `dashboard`. */
    by: z.string(),
  }),
  /** A person added a feature (`nightshift add`, the dashboard, the HTTP API): a writer session made it an entry. */
  z.object({
    type: z.literal('feature.added'),
    ...base,
    featureId: z.string(),
    /** The entry's description, as appended. */
    description: z.string(),
    dependsOn: z.array(z.string()),
    /** What the person asked for, verbatim. */
    text: z.string(),
    by: z.string(),
    /** The writer session's cost (null: a model without a price) and its refused proposals. */
    costUsd: z.number().nullable(),
    refusals: z.number().int().nonnegative(),
  }),
  z.object({
    type: z.literal('integrity.violation'),
    ...base,
    seq: z.number().int(),
    violation: IntegrityViolation,
  }),
  z.object({
    type: z.literal('budget.exceeded'),
    ...base,
    reason: z.enum(['budget', 'deadline', 'stuck', 'harness-error', 'no-progress']),
    detail: z.string(),
  }),
  z.object({
    type: z.literal('nightly.summary'),
    ...base,
    ...WindowSummary.shape,
  }),
  z.object({
    type: z.literal('notification.failed'),
    ...base,
    /** The webhook's origin only (paths may hold tokens). */
    target: z.string(),
    event: z.string(),
    attempts: z.number().int(),
    error: z.string(),
  }),
  /** Lanes mode: a lane's feature reached the merge queue, and how its merge ended. */
  z.object({
    type: z.literal('lane.merge'),
    ...base,
    seq: z.number().int(),
    lane: z.number().int().positive(),
    featureId: z.string(),
    outcome: MergeOutcome,
    /** Conflicting files, the red checks, or the error; empty when merged. */
    detail: z.string(),
    /** The run branch's head after a merge (null when nothing was merged). */
    head: z.string().nullable(),
    /** Features whose recorded checks replayed green on the merged head. */
    checked: z.array(z.string()).default([]),
    /** App files whose conflict the harness merged by rule, no model involved (issue 29). */
    resolved: z.array(z.string()).optional(),
  }),
  /**
   * Lanes mode: the feature list is known and the lanes model says the lanes will not pay for themselves (a small or
   * chained list); `run` prints it once (orchestrator/lanes/lanes-payoff.ts).
   */
  z.object({ type: z.literal('lanes.estimate'), ...base, estimate: LanesEstimate }),
  /** A session asked a person (`ask_human`): its feature waits for the answer. */
  z.object({ type: z.literal('question.asked'), ...base, question: Question }),
  /** A question got its answer: from a person (who: cli, dashboard, api) or the harness (`timeout`). */
  z.object({ type: z.literal('question.answered'), ...base, question: Question }),
  z.object({ type: z.literal('agent'), ...base, seq: z.number().int(), event: AgentEvent }),
]);
export type RunEvent = z.infer<typeof RunEvent>;

/** The `type` of a RunEvent. */
export type RunEventType = RunEvent['type'];

/** A RunEvent as read back from the stream, with its stream entry id (`<ms>-<n>`, usable as `after`). */
export interface StoredRunEvent {
  id: string;
  event: RunEvent;
}

/** Wraps an agent-loop event of session `seq` for the run's event log. */
export function wrapAgentEvent(runId: string, seq: number, event: AgentEvent): RunEvent {
  return { type: 'agent', runId, at: event.at, seq, event };
}
