import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { Feature, VerdictValue } from '../../handoff/formats.js';
import { Question } from '../../handoff/questions.js';
import { maskRemoteUrl } from '../../handoff/remote-url.js';
import { HumanNote } from '../../roles/human-notes.js';
import { IntegrityViolation, RoleName, SessionOutcome } from '../../roles/session-result.js';
import { RunConfig } from '../config.js';
import { FullSweepMark, LaneRecord } from '../lanes/lanes.js';

/**
 * Lifecycle of a run: `created → initializing → building ⇄ paused → done | incomplete | failed | cancelled`.
 * `incomplete`: every feature that is not blocked passes, but some are blocked (the app is not all built).
 */
export const RunStatus = z.enum([
  'created',
  'initializing',
  'building',
  'paused',
  'done',
  'incomplete',
  'failed',
  'cancelled',
]);
export type RunStatus = z.infer<typeof RunStatus>;

/** Why a run is paused. */
export const PausedReason = z.enum([
  'budget',
  'deadline',
  'stuck',
  'rate-limited',
  'user',
  'harness-error',
  'no-progress',
  /** Only features waiting for answers were left, for `questions.pauseAfterHours`. */
  'questions',
]);
export type PausedReason = z.infer<typeof PausedReason>;

/** Statuses in which the run wants sessions (the reconciler advances these). */
export const ACTIVE_STATUSES: readonly RunStatus[] = ['created', 'initializing', 'building'];

/** A run's name as shown everywhere: its own, or (a run from before names) its spec's file name without extension. */
export function runName(run: Pick<RunRecord, 'name' | 'spec'>): string {
  return run.name ?? run.spec.name.replace(/\.[^.]*$/, '');
}

/** Statuses a run ends in (it has a `finishedAt`; only `failed` and `incomplete` can be resumed). */
export const FINISHED_STATUSES: readonly RunStatus[] = ['done', 'incomplete', 'failed', 'cancelled'];

/** The blocked features of a run and why, one line each (`F-003: 3 failed evaluations`). */
export function blockedSummary(features: readonly FeatureState[], limit = 5): string {
  const blocked = features.filter((feature) => feature.blocked && !feature.passes);
  const lines = blocked
    .slice(0, limit)
    .map((feature) => `${feature.id} (${feature.blockedReason ?? 'blocked'})`);
  const more = blocked.length > limit ? `, and ${blocked.length - limit} more` : '';
  return `${blocked.length} feature(s) blocked: ${lines.join('; ')}${more}`;
}

/** Where the app being built lives: a local git repo, or a git remote shared by workers on many machines. */
export const Workspace = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('local'), path: z.string().min(1) }),
  z.object({
    kind: z.literal('remote'),
    /** Never with a credential: masked (`https://***@host/repo.git`) on the way in and out (the CLI splits it first). */
    url: z.string().min(1).transform(maskRemoteUrl),
    branch: z.string().min(1),
  }),
]);
export type Workspace = z.infer<typeof Workspace>;

/** Harness-side counters of a run, updated atomically with each session result. */
export const RunCounters = z.object({
  /** Finished sessions (any outcome). */
  sessions: z.number().int().nonnegative(),
  /** Sum of known session costs (USD). */
  costUsd: z.number().nonnegative(),
  /** Sessions whose model had no known price (their cost is not in costUsd). */
  costUnknownSessions: z.number().int().nonnegative(),
  /** Tokens (input, output, cache) used by those sessions: what `maxUnpricedTokens` caps. */
  unpricedTokens: z.number().int().nonnegative().default(0),
  /** Evaluate-mode verdicts in a row without a new pass (regression checks do not count). */
  evaluationsSinceLastPass: z.number().int().nonnegative(),
  /** New passes since the last completed regression sweep. */
  passesSinceLastRegression: z.number().int().nonnegative(),
  /** Seq of the session that produced the latest new pass (0 = none); a sweep re-checks features checked before it. */
  lastPassSeq: z.number().int().nonnegative(),
  /** Initializer sessions that ended without a feature list (or whose app did not start). */
  initializerFailures: z.number().int().nonnegative(),
  /** Why the last of them failed (the run's failure reason names it); null after one that worked. */
  lastInitializerFailure: z.string().nullable().default(null),
  /** Sessions in a row that ended `provider_error` or `refused`. */
  consecutiveProviderErrors: z.number().int().nonnegative(),
  /** What the last of them said (the provider's message and the fix); null after a session that worked. */
  lastProviderError: z.string().nullable().default(null),
  /** Passing features later found failing by a regression check. */
  regressions: z.number().int().nonnegative(),
  /** Completed regression sweeps. */
  sweeps: z.number().int().nonnegative(),
  /**
   * Set when a nightly window opens (the next seq then): passing features last checked before it are re-checked
   * first, by a regression sweep that replays their recorded checks before any model request (0 = none).
   */
  windowSweepBeforeSeq: z.number().int().nonnegative().default(0),
  /** The same harness error on the same step, that many times in a row (a session result resets it). */
  repeatedHarnessErrors: z.number().int().nonnegative().default(0),
  /** The last harness error: the step it broke (`evaluate F-001`) and its message with the fix. */
  lastHarnessError: z.object({ step: z.string(), message: z.string() }).nullable().default(null),
  /** When the run last made progress (a commit landed, a feature passed, it was started or resumed); null: never. */
  progressAt: z.string().nullable().default(null),
  /** The run's seq at that moment: the sessions started since are `seq - progressSeq`. */
  progressSeq: z.number().int().nonnegative().default(0),
  /** Lanes mode: merges since the last full sweep, when it ran, and the run branch's head it found green. */
  fullSweep: FullSweepMark.default({ mergesSince: 0, at: null, greenHead: null, durationMs: null }),
});
export type RunCounters = z.infer<typeof RunCounters>;

/** Pass/fail/blocked totals of a run's features (kept on the run record for cheap listing). */
export const FeatureSummary = z.object({
  total: z.number().int().nonnegative(),
  passing: z.number().int().nonnegative(),
  failing: z.number().int().nonnegative(),
  blocked: z.number().int().nonnegative(),
});
export type FeatureSummary = z.infer<typeof FeatureSummary>;

/** What the scheduler needs of the last session that counted (not rate-limited, aborted or a provider error). */
export const LastSession = z.object({
  seq: z.number().int().nonnegative(),
  role: RoleName,
  featureIds: z.array(z.string()),
  outcome: SessionOutcome,
});
export type LastSession = z.infer<typeof LastSession>;

/** One run as stored in Redis. */
export const RunRecord = z.object({
  id: z.string(),
  /** Revision for optimistic concurrency; bumped by every write. */
  rev: z.number().int().nonnegative(),
  /** What people call the run: `--name`, else the spec's title (null in records from before names: see runName). */
  name: z.string().nullable().default(null),
  spec: z.object({ path: z.string(), name: z.string() }),
  workspace: Workspace,
  config: RunConfig,
  status: RunStatus,
  /** Set while paused. */
  pausedReason: PausedReason.nullable(),
  /** Human-readable detail of the status (why it paused or failed). */
  detail: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Last job sequence number handed out by `nextSeq`. */
  seq: z.number().int().nonnegative(),
  counters: RunCounters,
  features: FeatureSummary,
  lastSession: LastSession.nullable(),
  /** Parallel lanes (config `lanes` > 1): each holds one feature on its own branch until it is merged. */
  lanes: z.array(LaneRecord).default([]),
  /** Lanes mode: the seq of the last job of the run's own slot (initializer, sweep, merge queue); 0 = none. */
  mainSeq: z.number().int().nonnegative().default(0),
  /** Questions sessions asked a person (`ask_human`); a feature with an open one waits for its answer. */
  questions: z.array(Question).default([]),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** What made a verdict `blocked`, as far as the scheduler cares. */
export const VerdictCause = z.enum(['app_did_not_start']);
export type VerdictCause = z.infer<typeof VerdictCause>;

/** A feature with the harness-only state the run store keeps beside it (never written to the workspace). */
export const FeatureState = Feature.extend({
  /** Index in `feature_list.json`: the priority order. */
  position: z.number().int().nonnegative(),
  /** Failed evaluations since the feature last passed (or was retried). */
  attempts: z.number().int().nonnegative(),
  /** `blocked` verdicts in a row (the check could not run). */
  blockedEvaluations: z.number().int().nonnegative(),
  /** Times this feature passed and was later found failing (a feature that keeps regressing gets blocked). */
  regressions: z.number().int().nonnegative(),
  /** Generator sessions since the last verdict on this feature. */
  generatorSessions: z.number().int().nonnegative(),
  /** Skipped by the scheduler until a user retries it. */
  blocked: z.boolean(),
  blockedReason: z.string().nullable(),
  lastVerdict: VerdictValue.nullable(),
  /**
   * Why the last `blocked` verdict was blocked, when the scheduler acts on it: `app_did_not_start` sends a
   * generator (only a generator can fix init.sh), not another evaluation. Null otherwise (and in older records).
   */
  lastVerdictCause: VerdictCause.nullable().default(null),
  lastVerdictAt: z.string().nullable(),
  /** Seq of the session that gave the last verdict (older results arriving late are ignored); 0 = never. */
  lastVerdictSeq: z.number().int().nonnegative(),
  /** Seq of the session that gave the last conclusive check (pass or fail); 0 = never. */
  lastCheckedSeq: z.number().int().nonnegative(),
  /** Lanes mode: passed on its lane's branch, waiting for the merge queue (not passing on the run branch yet). */
  mergePending: z.boolean().default(false),
  /** What people wrote about it (`note`, `reopen`, `unblock`), oldest first: its generator sessions read them. */
  humanNotes: z.array(HumanNote).default([]),
  /** Lanes mode: checks this feature's next merge replays too (a full sweep found them broken by its last merge). */
  replayOnMerge: z.array(z.string()).default([]),
});
export type FeatureState = z.infer<typeof FeatureState>;

/** Everything the planner reads: the run record and its features in list order. */
export interface RunState {
  run: RunRecord;
  features: FeatureState[];
}

export {
  emptySession,
  SessionKind,
  SessionRecord,
  SessionStart,
  SessionVerdict,
} from './session-record.js';
/** Re-exports for callers that only import run-state. */
export { IntegrityViolation };

/** A fresh run id: `r-<time base36><6 hex>`, sortable by creation time, url-safe, no `:`. */
export function newRunId(now: Date = new Date(), random: (bytes: number) => Buffer = randomBytes): string {
  return `r-${now.getTime().toString(36)}${random(3).toString('hex')}`;
}

/** Counters of a new run. */
export function emptyCounters(): RunCounters {
  return {
    sessions: 0,
    costUsd: 0,
    costUnknownSessions: 0,
    unpricedTokens: 0,
    evaluationsSinceLastPass: 0,
    passesSinceLastRegression: 0,
    lastPassSeq: 0,
    initializerFailures: 0,
    lastInitializerFailure: null,
    consecutiveProviderErrors: 0,
    lastProviderError: null,
    regressions: 0,
    sweeps: 0,
    windowSweepBeforeSeq: 0,
    repeatedHarnessErrors: 0,
    lastHarnessError: null,
    progressAt: null,
    progressSeq: 0,
    fullSweep: { mergesSince: 0, at: null, greenHead: null, durationMs: null },
  };
}

/**
 * The run's cost as shown everywhere: the sum of known session costs, or null when no session has a known
 * price (a run of unpriced models has an unknown cost, never $0). `costUnknownSessions` says how many are left out.
 */
export function knownCostUsd(
  counters: Pick<RunCounters, 'costUsd' | 'sessions' | 'costUnknownSessions'>,
): number | null {
  return counters.costUnknownSessions > 0 && counters.costUnknownSessions >= counters.sessions
    ? null
    : counters.costUsd;
}

/** Totals of passing, failing (not blocked) and blocked features. */
export function summarizeFeatures(features: readonly FeatureState[]): FeatureSummary {
  let passing = 0;
  let blocked = 0;
  for (const feature of features) {
    if (feature.passes) passing++;
    else if (feature.blocked) blocked++;
  }
  return { total: features.length, passing, failing: features.length - passing - blocked, blocked };
}

/** A stored feature from a `feature_list.json` entry; keeps the harness state of `previous` when given. */
export function toFeatureState(feature: Feature, position: number, previous?: FeatureState): FeatureState {
  return {
    attempts: 0,
    blockedEvaluations: 0,
    regressions: 0,
    generatorSessions: 0,
    blocked: false,
    blockedReason: null,
    lastVerdict: null,
    lastVerdictCause: null,
    lastVerdictAt: null,
    lastVerdictSeq: 0,
    lastCheckedSeq: 0,
    mergePending: false,
    humanNotes: [],
    replayOnMerge: [],
    ...(previous ?? {}),
    ...feature,
    position,
  };
}

/**
 * Passing features a regression sweep still has to re-check: those last checked before the latest new pass.
 * Empty when the last sweep covered everything.
 */
export function sweepCandidates(state: RunState): FeatureState[] {
  const since = Math.max(state.run.counters.lastPassSeq, state.run.counters.windowSweepBeforeSeq);
  return state.features.filter(
    (feature) => feature.passes && !feature.blocked && feature.lastCheckedSeq < since,
  );
}

/** Passing features a nightly window re-checks before anything else (last checked before the window opened). */
export function windowSweepCandidates(state: RunState): FeatureState[] {
  const before = state.run.counters.windowSweepBeforeSeq;
  return state.features.filter(
    (feature) => feature.passes && !feature.blocked && feature.lastCheckedSeq < before,
  );
}
