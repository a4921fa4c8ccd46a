import type { Redis } from 'ioredis';
import { InputError } from '../../core/errors.js';
import { type Feature, FeatureList } from '../../handoff/formats.js';
import { SessionResult } from '../../roles/session-result.js';
import { RunConfig, type RunConfigInput } from '../config.js';
import { isWaitingOn } from '../dependencies.js';
import {
  type AppendObserver,
  DEFAULT_EVENT_LOG_MAX_LENGTH,
  type EventListener,
  EventLog,
  type ReadEventsOptions,
} from '../event-log.js';
import type { RunEvent, StoredRunEvent } from '../events.js';
import { DEFAULT_KEY_PREFIX, type RunKeys, runKeys, runsIndexKey } from '../keys.js';
import { type RedisWait, writeDurably } from '../replica-ack.js';
import { applyResultOnce, type RecordResultOutcome } from './record-result.js';
import { casUpdateRun, decodeFeatures, decodeRun } from './run-cas.js';
import { FeatureNotFoundError, RunNotFoundError } from './run-errors.js';
import { FeaturePatch, NewRun, newRunRecord, statusChange } from './run-records.js';
import {
  emptySession,
  FeatureState,
  type PausedReason,
  type RunRecord,
  type RunState,
  RunStatus,
  SessionRecord,
  SessionStart,
  summarizeFeatures,
  toFeatureState,
} from './run-state.js';

export type { RecordResultOutcome } from './record-result.js';
export { FeatureNotFoundError, RunConflictError, RunNotFoundError } from './run-errors.js';

/** Options of a RunStore. */
export interface RunStoreOptions {
  /** Key prefix (default `nightshift:`); tests use a unique one. */
  prefix?: string;
  /** Bound of each run's event stream (default 10,000 entries, approximate). */
  eventLogMaxLength?: number;
  /** Clock (injected for tests). */
  now?: () => Date;
  /** Sentinel: a session's result waits for replicas and is read back (orchestrator/replica-ack.ts). */
  redisWait?: RedisWait;
}

/** A page of a run's session history. */
export interface SessionPage {
  total: number;
  sessions: SessionRecord[];
}

/**
 * Runs in Redis: records, features (a hash, one field per feature), session history (a hash plus a seq index for
 * paging), counters and the event log. Every read and write is validated with zod; every multi-key change is one
 * atomic compare-and-set on the run's revision, so concurrent writers (two workers) never lose an update.
 */
export class RunStore {
  /** The key prefix in use. */
  readonly prefix: string;
  private readonly now: () => Date;
  private readonly events: EventLog;
  private readonly redisWait: RedisWait | undefined;

  constructor(
    readonly redis: Redis,
    options: RunStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? DEFAULT_KEY_PREFIX;
    this.now = options.now ?? (() => new Date());
    this.redisWait = options.redisWait;
    this.events = new EventLog(redis, this.prefix, options.eventLogMaxLength ?? DEFAULT_EVENT_LOG_MAX_LENGTH);
  }

  /** The Redis keys of a run. */
  keys(runId: string): RunKeys {
    return runKeys(this.prefix, runId);
  }

  /** Creates a run in status `created` and appends `run.created`. */
  async createRun(input: NewRun): Promise<RunRecord> {
    const parsed = NewRun.parse(input);
    const now = this.now();
    const at = now.toISOString();
    const run = newRunRecord(parsed, now);
    const keys = this.keys(run.id);
    const created = await this.redis.set(keys.run, JSON.stringify(run), 'NX');
    if (created !== 'OK')
      throw new InputError('RUN_EXISTS', `Run ${run.id} already exists.`, { hint: 'Pick another id.' });
    await this.redis.zadd(runsIndexKey(this.prefix), now.getTime(), run.id);
    await this.appendEvent(run.id, {
      type: 'run.created',
      runId: run.id,
      at,
      spec: run.spec,
      workspace: run.workspace,
    });
    return run;
  }

  /** The run, or undefined when it does not exist. */
  async findRun(runId: string): Promise<RunRecord | undefined> {
    const keys = this.keys(runId);
    const [json, seq] = await this.redis.mget(keys.run, keys.seq);
    return json ? decodeRun(json, seq) : undefined;
  }

  /** The run; throws RunNotFoundError. */
  async getRun(runId: string): Promise<RunRecord> {
    const run = await this.findRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    return run;
  }

  /** Runs, newest first, optionally only those in `status`. */
  async listRuns(options: { status?: readonly RunStatus[]; limit?: number } = {}): Promise<RunRecord[]> {
    const ids = await this.redis.zrevrange(runsIndexKey(this.prefix), 0, -1);
    if (ids.length === 0) return [];
    const values = await this.redis.mget(ids.flatMap((id) => [this.keys(id).run, this.keys(id).seq]));
    const runs: RunRecord[] = [];
    for (let index = 0; index < ids.length; index++) {
      const json = values[index * 2];
      if (!json) continue;
      const run = decodeRun(json, values[index * 2 + 1] ?? null);
      if (options.status && !options.status.includes(run.status)) continue;
      runs.push(run);
      if (options.limit !== undefined && runs.length >= options.limit) break;
    }
    return runs;
  }

  /**
   * Changes a run's status (validated against STATUS_TRANSITIONS; throws RunTransitionError) and appends
   * `run.status`. Pausing needs a reason (default `user`). Leaving `paused` restarts its stop condition (progress-watch.ts);
   * leaving `failed` resets the initializer and provider-error counts, so a resumed run gets a fresh chance.
   */
  async setStatus(
    runId: string,
    status: RunStatus,
    options: { reason?: PausedReason; detail?: string } = {},
  ): Promise<RunRecord> {
    const target = RunStatus.parse(status);
    let event: RunEvent | undefined;
    const run = await casUpdateRun(this.redis, this.keys(runId), runId, {}, (current) => {
      const change = statusChange(runId, current, target, options, this.now);
      event = change?.event;
      return change && { run: change.run };
    });
    if (event) await this.appendEvent(runId, event);
    return run;
  }

  /** Replaces a run's config (e.g. a higher budget or a new deadline before resuming); validated. */
  async updateConfig(runId: string, update: (config: RunConfig) => RunConfigInput): Promise<RunRecord> {
    return casUpdateRun(this.redis, this.keys(runId), runId, {}, (current) => ({
      run: {
        ...current,
        config: RunConfig.parse(update(current.config)),
        updatedAt: this.now().toISOString(),
      },
    }));
  }

  /** A nightly window opens: every passing feature is re-checked (replay first) before other work. */
  async requestWindowSweep(runId: string): Promise<RunRecord> {
    return casUpdateRun(this.redis, this.keys(runId), runId, {}, (current) => ({
      run: {
        ...current,
        counters: { ...current.counters, windowSweepBeforeSeq: current.seq + 1 },
        updatedAt: this.now().toISOString(),
      },
    }));
  }

  /** Sets the feature list (after the initializer); features already known keep their harness state. */
  async replaceFeatures(runId: string, features: Feature[]): Promise<RunRecord> {
    const list = FeatureList.parse(features);
    return casUpdateRun(this.redis, this.keys(runId), runId, { features: true }, (current, previous) => {
      const byId = new Map(previous.map((feature) => [feature.id, feature]));
      const next = list.map((feature, index) => toFeatureState(feature, index, byId.get(feature.id)));
      const run = { ...current, features: summarizeFeatures(next), updatedAt: this.now().toISOString() };
      return { run, features: next, replaceFeatures: true };
    });
  }

  /** Changes harness fields of one feature; throws FeatureNotFoundError. */
  async updateFeature(runId: string, featureId: string, patch: FeaturePatch): Promise<FeatureState> {
    const valid = FeaturePatch.parse(patch);
    let updated: FeatureState | undefined;
    await casUpdateRun(this.redis, this.keys(runId), runId, { features: true }, (current, features) => {
      const index = features.findIndex((feature) => feature.id === featureId);
      const feature = features[index];
      if (!feature) throw new FeatureNotFoundError(runId, featureId);
      updated = FeatureState.parse({ ...feature, ...valid });
      features[index] = updated;
      const run = { ...current, features: summarizeFeatures(features), updatedAt: this.now().toISOString() };
      return { run, features: [updated] };
    });
    return updated as FeatureState;
  }

  /**
   * Unblocks a feature and resets its attempts (the dashboard's "retry"); appends `feature.retried`. Features
   * blocked only because they wait on it (`depends_on`) are retried with it.
   */
  async retryFeature(runId: string, featureId: string): Promise<FeatureState> {
    for (const waiting of await this.listFeatures(runId)) {
      if (isWaitingOn(waiting, featureId)) await this.retryFeature(runId, waiting.id);
    }
    const feature = await this.updateFeature(runId, featureId, {
      blocked: false,
      blockedReason: null,
      attempts: 0,
      blockedEvaluations: 0,
      regressions: 0,
      generatorSessions: 0,
    });
    await this.appendEvent(runId, {
      type: 'feature.retried',
      runId,
      at: this.now().toISOString(),
      featureId,
    });
    return feature;
  }

  /** The next job sequence number of a run (atomic INCR; 1 for the first job). */
  async nextSeq(runId: string): Promise<number> {
    return this.redis.incr(this.keys(runId).seq);
  }

  /** Records that a session began (idempotent per seq; a re-delivered job overwrites worker and start time). */
  async recordSessionStarted(runId: string, start: SessionStart): Promise<SessionRecord> {
    const valid = SessionStart.parse(start);
    const at = valid.startedAt ?? this.now().toISOString();
    let session: SessionRecord | undefined;
    await casUpdateRun(
      this.redis,
      this.keys(runId),
      runId,
      { session: valid.seq },
      (current, _features, previous) => {
        if (previous?.finishedAt) {
          session = previous;
          return undefined;
        }
        session = {
          ...emptySession(valid.seq, valid.jobId, valid.role, at),
          ...valid,
          kind: valid.kind ?? null,
          lane: valid.lane ?? null,
          startedAt: at,
        };
        return { run: { ...current, updatedAt: at }, session };
      },
    );
    const record = session as SessionRecord;
    if (!record.finishedAt) {
      const { seq, jobId, role, featureIds, workerId, lane } = record;
      await this.appendEvent(runId, {
        type: 'session.started',
        runId,
        at,
        seq,
        jobId,
        role,
        featureIds,
        workerId,
        ...(lane ? { lane } : {}),
      });
    }
    return record;
  }

  /**
   * Records a session's result and, in the same atomic step, its effect on the run: counters, cost, feature
   * attempts / blocked / passes / last verdict (see applySessionResult) and, for an initializer, the new feature
   * list. Idempotent per seq: a second result for the same seq changes nothing (`applied: false`). On Sentinel it
   * outlives a failover (replica-ack.ts).
   */
  async recordSessionResult(
    runId: string,
    seq: number,
    result: SessionResult,
    options: { features?: Feature[] } = {},
  ): Promise<RecordResultOutcome> {
    const valid = SessionResult.parse(result);
    const newFeatures = options.features ? FeatureList.parse(options.features) : undefined;
    return writeDurably(this.redis, this.redisWait, {
      what: `the result of session ${seq} of run ${runId}`,
      write: () => applyResultOnce(this, { runId, seq, result: valid, newFeatures, now: this.now }),
      landed: async () => Boolean((await this.getSession(runId, seq))?.finishedAt),
    });
  }

  /** One session of the history, or undefined. */
  async getSession(runId: string, seq: number): Promise<SessionRecord | undefined> {
    const json = await this.redis.hget(this.keys(runId).sessions, String(seq));
    return json ? SessionRecord.parse(JSON.parse(json)) : undefined;
  }

  /** A page of the session history by seq (`order` default `asc`). */
  async listSessions(
    runId: string,
    options: { offset?: number; limit?: number; order?: 'asc' | 'desc' } = {},
  ): Promise<SessionPage> {
    const keys = this.keys(runId);
    const offset = options.offset ?? 0;
    const limit = options.limit ?? 50;
    const [total, seqs] = await Promise.all([
      this.redis.zcard(keys.sessionIndex),
      options.order === 'desc'
        ? this.redis.zrevrange(keys.sessionIndex, offset, offset + limit - 1)
        : this.redis.zrange(keys.sessionIndex, offset, offset + limit - 1),
    ]);
    if (seqs.length === 0) return { total, sessions: [] };
    const values = await this.redis.hmget(keys.sessions, ...seqs);
    const sessions = values
      .filter((json): json is string => !!json)
      .map((json) => SessionRecord.parse(JSON.parse(json)));
    return { total, sessions };
  }

  /** Features of a run in list order. */
  async listFeatures(runId: string): Promise<FeatureState[]> {
    return decodeFeatures(await this.redis.hgetall(this.keys(runId).features));
  }

  /** Everything the scheduler reads (run record + features in list order), from one round-trip. */
  async loadState(runId: string): Promise<RunState> {
    const keys = this.keys(runId);
    const [[, json], [, seq], [, hash]] = (await this.redis
      .multi()
      .get(keys.run)
      .get(keys.seq)
      .hgetall(keys.features)
      .exec()) as [[unknown, string | null], [unknown, string | null], [unknown, Record<string, string>]];
    if (!json) throw new RunNotFoundError(runId);
    return { run: decodeRun(json, seq), features: decodeFeatures(hash) };
  }

  /** Deletes a run and all its keys (history, events, lock). */
  async deleteRun(runId: string): Promise<void> {
    const keys = this.keys(runId);
    await this.redis.del(...Object.values(keys));
    await this.redis.zrem(runsIndexKey(this.prefix), runId);
  }

  /** Validates and appends an event to the run's log (bounded stream + live channel); returns its stream id. */
  async appendEvent(runId: string, event: RunEvent): Promise<string> {
    return this.events.append(runId, event);
  }

  /** Calls `observer` with every event this process appends (a worker's metrics); returns the unsubscribe. */
  observeAppends(observer: AppendObserver): () => void {
    return this.events.observeAppends(observer);
  }

  /** Events of a run, oldest first (`after` = exclusive stream id; `latest` = the newest `count`). */
  async readEvents(runId: string, options: ReadEventsOptions = {}): Promise<StoredRunEvent[]> {
    return this.events.read(runId, options);
  }

  /** Number of entries in a run's event stream. */
  async eventCount(runId: string): Promise<number> {
    return this.events.length(runId);
  }

  /** Live events of a run; resolves once subscribed, to an unsubscribe function. */
  async subscribeEvents(runId: string, onEvent: EventListener): Promise<() => Promise<void>> {
    return this.events.subscribe(runId, onEvent);
  }

  /** Closes the store's own connections (the subscriber); the Redis client passed in belongs to the caller. */
  async close(): Promise<void> {
    await this.events.close();
  }
}
