/**
 * `GET /api/runs/:id/story` and the `story` of `nightshift status --json`: the night in a few groups (what is done,
 * what is stuck and why, what it cost, what runs now and what is next, an hourly timeline), sized by the groups and
 * not by the features or sessions, so a 60-feature, 300-session run reads like a 6-feature one.
 */
import { z } from 'zod';
import { WindowSummary } from '../orchestrator/events.js';
import { PausedReason, RunStatus, SessionKind } from '../orchestrator/run/run-state.js';
import { RoleName } from '../roles/session-result.js';

/** Features by where they stand; every feature is in exactly one group (they add up to `total`). */
export const StoryCounts = z.strictObject({
  total: z.number().int().nonnegative(),
  passing: z.number().int().nonnegative(),
  /** Evaluated and not passing, not blocked, not waiting, not in a session now. */
  failing: z.number().int().nonnegative(),
  /** Skipped by the planner until a person unblocks or retries them. */
  blocked: z.number().int().nonnegative(),
  /** An open question waits for a person's answer. */
  waiting: z.number().int().nonnegative(),
  /** In a running session, held by a lane, or passed on a lane and waiting for the merge queue. */
  inProgress: z.number().int().nonnegative(),
  /** Never worked on yet. */
  notStarted: z.number().int().nonnegative(),
});
export type StoryCounts = z.infer<typeof StoryCounts>;

/** A blocked feature and why (the reason is harness text, or model text quoted in it: shown as text). */
export const StoryBlocked = z.strictObject({
  featureId: z.string(),
  description: z.string(),
  reason: z.string(),
});

/** A feature that keeps failing its evaluation but is not blocked yet. */
export const StoryStruggling = z.strictObject({
  featureId: z.string(),
  description: z.string(),
  /** Failed evaluations since it last passed (or was retried). */
  failedEvaluations: z.number().int().nonnegative(),
  /** After this many the planner blocks it (`budgets.maxAttemptsPerFeature`). */
  limit: z.number().int().positive(),
});

/** An open question a session asked a person. */
export const StoryQuestion = z.strictObject({
  id: z.string(),
  featureId: z.string(),
  question: z.string(),
  askedAt: z.string(),
});

/** A session in flight. */
export const StoryRunning = z.strictObject({
  seq: z.number().int().nonnegative(),
  role: RoleName,
  kind: SessionKind.nullable(),
  featureIds: z.array(z.string()),
  /** Lanes mode: its lane (null: the run's own slot, or a serial run). */
  lane: z.number().int().positive().nullable(),
  startedAt: z.string(),
});

/** One bucket of the night (`hours` long, from `start`), from the session history. */
export const StoryBucket = z.strictObject({
  start: z.string(),
  /** Sessions that ended in the bucket. */
  sessions: z.number().int().nonnegative(),
  /** Pass verdicts of evaluations (a feature passing for the first time, or again after a failure). */
  passed: z.number().int().nonnegative(),
  /** Fail verdicts (evaluations and regression checks). */
  failed: z.number().int().nonnegative(),
  /** Known cost of those sessions (USD). */
  costUsd: z.number().nonnegative(),
});

/** The run's story. */
export const RunStory = z.strictObject({
  runId: z.string(),
  status: RunStatus,
  pausedReason: PausedReason.nullable(),
  /** Why it is paused, failed or incomplete. */
  detail: z.string().nullable(),
  /** When the story was told (the `now` it was built with). */
  at: z.string(),
  counts: StoryCounts,
  stuck: z.strictObject({
    /** Every blocked feature, in list order. */
    blocked: z.array(StoryBlocked),
    /** Not-blocked features with at least half their allowed failed evaluations, most failures first. */
    struggling: z.array(StoryStruggling),
    /** Open questions, oldest first. */
    questions: z.array(StoryQuestion),
  }),
  cost: z.strictObject({
    /** Known cost (null: no session has a known price; never $0 for unknown). */
    usd: z.number().nonnegative().nullable(),
    /** Known cost divided by the passing features (null: none passes, or the cost is unknown). */
    perPassingUsd: z.number().nonnegative().nullable(),
    /** Sessions of models without a price (not in `usd`). */
    unknownSessions: z.number().int().nonnegative(),
    /** The cost cap (null: none). */
    capUsd: z.number().nullable(),
  }),
  sessions: z.strictObject({
    /** Finished sessions (the run's counter: every outcome). */
    finished: z.number().int().nonnegative(),
    running: z.number().int().nonnegative(),
    /** Finished sessions that produced nothing usable (provider errors, refusals, rate limits, aborts, failures). */
    wasted: z.number().int().nonnegative(),
    max: z.number().int().positive(),
  }),
  /** Sessions in flight now (only while the run is active). */
  running: z.array(StoryRunning),
  next: z.strictObject({
    /** What the planner does next, in words (null: the run is over or waits on nothing it can name). */
    step: z.string().nullable(),
    /** The next features to be started, in list order (dependencies met, nobody on them). */
    upcoming: z.array(z.string()),
    /** How many more are ready after `upcoming`. */
    more: z.number().int().nonnegative(),
  }),
  /**
   * The newest nightly summary in the event log (a scheduled window that closed): newly passing, newly failing and
   * blocked features of that window; null when the run has no schedule or no window closed yet.
   */
  lastWindow: WindowSummary.extend({ at: z.string() }).nullable(),
  timeline: z.strictObject({
    /** Hours per bucket: 1, or more for a run so long that hourly buckets would not fit on a screen. */
    hours: z.number().int().positive(),
    buckets: z.array(StoryBucket),
  }),
});
export type RunStory = z.infer<typeof RunStory>;
