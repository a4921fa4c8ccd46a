import { type LaneMergeView, toLaneMergeView } from '../orchestrator/lanes/lane-view.js';
import { noWorkerNote } from '../orchestrator/no-worker.js';
import type { RunStore } from '../orchestrator/run/index.js';
import {
  ACTIVE_STATUSES,
  type FeatureState,
  knownCostUsd,
  type RunRecord,
  runName,
  type SessionRecord,
} from '../orchestrator/run/index.js';
import type {
  FeatureView,
  GridResponse,
  NightlySummaryView,
  ProgressPoint,
  ProgressResponse,
  RunView,
} from './api-types.js';
import { featureState } from './feature-state.js';

/** Finds the next scheduled start of a run (a nightly schedule), or null; supplied by the schedules module. */
export type NextScheduledStart = (runId: string) => Promise<string | null>;

/**
 * The listing/header view of a run record. `workers`: workers connected to the queue (null: unknown); it is
 * shown only while the run wants sessions, with the way on when there are none.
 */
export function toRunView(
  run: RunRecord,
  nextScheduledAt: string | null,
  workers: number | null = null,
): RunView {
  const active = ACTIVE_STATUSES.includes(run.status);
  return {
    id: run.id,
    name: runName(run),
    specName: run.spec.name,
    workspace:
      run.workspace.kind === 'local' ? run.workspace.path : `${run.workspace.url}#${run.workspace.branch}`,
    status: run.status,
    pausedReason: run.pausedReason,
    detail: run.detail,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    updatedAt: run.updatedAt,
    finishedAt: run.finishedAt,
    features: run.features,
    sessions: run.counters.sessions,
    costUsd: knownCostUsd(run.counters),
    costUnknownSessions: run.counters.costUnknownSessions,
    nextScheduledAt: nextScheduledAt ?? readNextScheduled(run),
    workers: active ? workers : null,
    noWorker: active && workers === 0 ? `${capitalized(noWorkerNote(run))}.` : null,
    questions: run.questions,
  };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// A future run record may carry its next scheduled start; show it when it does.
function readNextScheduled(run: RunRecord): string | null {
  const value = (run as unknown as { nextScheduledAt?: unknown }).nextScheduledAt;
  return typeof value === 'string' ? value : null;
}

/** The grid view of a feature. */
export function toFeatureView(feature: FeatureState): FeatureView {
  return {
    id: feature.id,
    category: feature.category,
    description: feature.description,
    passes: feature.passes,
    position: feature.position,
    attempts: feature.attempts,
    blocked: feature.blocked,
    blockedReason: feature.blockedReason,
    lastVerdict: feature.lastVerdict,
    lastVerdictAt: feature.lastVerdictAt,
  };
}

/** The compact grid payload: categories once, then one short row per feature. */
export function toGridResponse(features: readonly FeatureState[]): GridResponse {
  const categories: string[] = [];
  const index = new Map<string, number>();
  const rows = features.map((feature): GridResponse['features'][number] => {
    let category = index.get(feature.category);
    if (category === undefined) {
      category = categories.push(feature.category) - 1;
      index.set(feature.category, category);
    }
    return [feature.id, category, featureState(feature), feature.attempts];
  });
  return { categories, features: rows };
}

const DIGEST_SCAN = 2000;
/** Merge results kept per run (the Now card shows a few, each lane its newest). */
const RECENT_MERGES = 12;

/** What the run page shows from the event log: the newest nightly summary and the newest merge results. */
export interface RunEventDigest {
  nightlySummary: NightlySummaryView | null;
  /** Newest first. */
  recentMerges: LaneMergeView[];
}

/**
 * The newest `nightly.summary` and `lane.merge` events of each run, found by scanning only the events appended
 * since the last look (the stream holds agent events too, so a full scan per request would be slow).
 */
export class RunEventDigestCache {
  private readonly seen = new Map<string, { lastId: string; digest: RunEventDigest }>();

  constructor(private readonly store: RunStore) {}

  /** The digest of `runId`'s events. */
  async get(runId: string): Promise<RunEventDigest> {
    const cached = this.seen.get(runId);
    let events = await this.store.readEvents(runId, { after: cached?.lastId, count: DIGEST_SCAN });
    if (events.length === DIGEST_SCAN || !cached) {
      events = await this.store.readEvents(runId, { latest: true, count: DIGEST_SCAN });
    }
    let { nightlySummary, recentMerges } = cached?.digest ?? { nightlySummary: null, recentMerges: [] };
    for (const { event } of events) {
      const merge = toLaneMergeView(event);
      // A rescan may read merges already kept: one per seq, newest first.
      if (merge && !recentMerges.some((kept) => kept.seq === merge.seq))
        recentMerges = [merge, ...recentMerges].sort((a, b) => b.seq - a.seq).slice(0, RECENT_MERGES);
      if (event.type !== 'nightly.summary') continue;
      const { type: _type, runId: _runId, ...rest } = event;
      nightlySummary = rest;
    }
    const next = { nightlySummary, recentMerges };
    const lastId = events.at(-1)?.id ?? cached?.lastId;
    if (lastId) this.seen.set(runId, { lastId, digest: next });
    return next;
  }
}

const SESSION_BATCH = 1000;

interface ProgressState {
  /** Leading sessions (by seq) already folded in: all finished, so they never change again. */
  folded: number;
  passing: Set<string>;
  points: ProgressPoint[];
}

/**
 * Passing features after each session with verdicts, computed from the session history. Finished sessions never
 * change, so each run's leading finished sessions are folded once and only newer ones are read on later requests.
 */
export class ProgressCache {
  private readonly states = new Map<string, ProgressState>();

  constructor(private readonly store: RunStore) {}

  private readonly inFlight = new Map<string, Promise<ProgressResponse>>();

  /** The passing-over-time series of `run` (concurrent calls for one run share one computation). */
  get(run: RunRecord): Promise<ProgressResponse> {
    const pending = this.inFlight.get(run.id);
    if (pending) return pending;
    const next = this.compute(run).finally(() => this.inFlight.delete(run.id));
    this.inFlight.set(run.id, next);
    return next;
  }

  private async compute(run: RunRecord): Promise<ProgressResponse> {
    const state = this.states.get(run.id) ?? { folded: 0, passing: new Set<string>(), points: [] };
    this.states.set(run.id, state);
    const tail: ProgressPoint[] = [];
    let passing = state.passing;
    let foldable = true;
    for (let offset = state.folded; ; offset += SESSION_BATCH) {
      const page = await this.store.listSessions(run.id, { offset, limit: SESSION_BATCH });
      for (const session of page.sessions) {
        if (foldable && session.finishedAt === null) {
          foldable = false;
          passing = new Set(passing);
        }
        const point = applyVerdicts(session, passing);
        if (foldable) state.folded++;
        if (point) (foldable ? state.points : tail).push(point);
      }
      if (page.sessions.length < SESSION_BATCH) break;
    }
    return { total: run.features.total, points: [...state.points, ...tail] };
  }
}

function applyVerdicts(session: SessionRecord, passing: Set<string>): ProgressPoint | null {
  if (session.verdicts.length === 0) return null;
  for (const verdict of session.verdicts) {
    if (verdict.verdict === 'pass') passing.add(verdict.featureId);
    else if (verdict.verdict === 'fail') passing.delete(verdict.featureId);
  }
  return { seq: session.seq, at: session.finishedAt ?? session.startedAt, passing: passing.size };
}
