import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AgentEvent } from '../agent/events.js';
import type { RunEvent } from '../orchestrator/events.js';
import { ACTIVE_STATUSES, type RunStore } from '../orchestrator/run/index.js';

/** Where scrape-time gauges read from: the queues (depths) and the run store (runs and lanes). */
export interface MetricsSources {
  queues?: readonly Queue[];
  store?: RunStore;
}

/** Session and merge durations run from seconds to an hour. */
const DURATION_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;
const TOKEN_KINDS = {
  inputTokens: 'input',
  outputTokens: 'output',
  cacheReadTokens: 'cache_read',
  cacheWriteTokens: 'cache_write',
} as const;

/**
 * nightshift's Prometheus metrics on a private registry (never prom-client's global one). Counters move from the run
 * events a process appends or reads ({@link NightshiftMetrics.observe}) and from what the worker measures itself
 * (merge durations, Redis errors, sessions in flight); gauges are read at scrape time from Redis.
 */
export class NightshiftMetrics {
  /** The registry `/metrics` serves. */
  readonly registry = new Registry();
  private readonly sessions: Counter<'role' | 'outcome'>;
  private readonly sessionSeconds: Histogram<'role' | 'outcome'>;
  private readonly tokens: Counter<'model' | 'kind'>;
  private readonly cost: Counter<'model'>;
  private readonly modelRequests: Counter<'model'>;
  private readonly modelErrors: Counter<'model' | 'kind'>;
  private readonly toolCalls: Counter<'tool' | 'result'>;
  private readonly verdicts: Counter<'verdict' | 'mode'>;
  private readonly merges: Counter<'outcome'>;
  private readonly checkReplays: Counter<'where' | 'result'>;
  private readonly mergeSeconds: Histogram<'outcome'>;
  private readonly redisErrors: Counter<'connection'>;
  private readonly inFlight: Gauge;
  /** The model of each session in flight (`runId/seq`), from its agent `session.started`. */
  private readonly modelOf = new Map<string, string>();

  constructor(sources: MetricsSources = {}) {
    const registers = [this.registry];
    this.sessions = new Counter({
      name: 'nightshift_sessions_total',
      help: 'Role sessions that ended, by role and outcome.',
      labelNames: ['role', 'outcome'],
      registers,
    });
    this.sessionSeconds = new Histogram({
      name: 'nightshift_session_duration_seconds',
      help: 'How long role sessions ran, by role and outcome.',
      labelNames: ['role', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.tokens = new Counter({
      name: 'nightshift_model_tokens_total',
      help: 'Model tokens used, by model and kind (input, output, cache_read, cache_write).',
      labelNames: ['model', 'kind'],
      registers,
    });
    this.cost = new Counter({
      name: 'nightshift_model_cost_usd_total',
      help: 'Model spend in US dollars, by model (priced models only).',
      labelNames: ['model'],
      registers,
    });
    this.modelRequests = new Counter({
      name: 'nightshift_model_requests_total',
      help: 'Model requests answered, by model.',
      labelNames: ['model'],
      registers,
    });
    this.modelErrors = new Counter({
      name: 'nightshift_model_errors_total',
      help: 'Model request errors, by model and kind (retried or not).',
      labelNames: ['model', 'kind'],
      registers,
    });
    this.toolCalls = new Counter({
      name: 'nightshift_tool_calls_total',
      help: 'Tool calls that ended, by tool and result (ok, error).',
      labelNames: ['tool', 'result'],
      registers,
    });
    this.verdicts = new Counter({
      name: 'nightshift_evaluator_verdicts_total',
      help: 'Evaluator verdicts applied, by verdict and mode (evaluate, regression).',
      labelNames: ['verdict', 'mode'],
      registers,
    });
    this.merges = new Counter({
      name: 'nightshift_merges_total',
      help: 'Lane merges by the merge train, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    this.checkReplays = new Counter({
      name: 'nightshift_check_replays_total',
      help: 'Recorded checks replayed, by where (merge, sweep, gate, full_sweep) and result (pass, fail).',
      labelNames: ['where', 'result'],
      registers,
    });
    this.mergeSeconds = new Histogram({
      name: 'nightshift_merge_queue_duration_seconds',
      help: 'How long one merge-queue step took (merge, replay the checks, record), by outcome (worker only).',
      labelNames: ['outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.redisErrors = new Counter({
      name: 'nightshift_redis_errors_total',
      help: 'Errors reported by Redis connections, by connection (commands, queue).',
      labelNames: ['connection'],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'nightshift_worker_sessions_in_flight',
      help: 'Session and merge jobs this worker is running now (worker only).',
      registers,
    });
    if (sources.queues) this.queueDepths(sources.queues);
    if (sources.store) this.runGauges(sources.store);
  }

  /** Counts what a run event says happened (a session ended, a verdict, a merge, replays, model usage, a tool call). */
  observe(event: RunEvent): void {
    switch (event.type) {
      case 'session.finished':
        this.sessions.inc({ role: event.role, outcome: event.outcome });
        this.sessionSeconds.observe({ role: event.role, outcome: event.outcome }, event.durationMs / 1000);
        return;
      case 'verdict.applied':
        this.verdicts.inc({ verdict: event.verdict, mode: event.mode });
        return;
      case 'lane.merge':
        this.merges.inc({ outcome: event.outcome });
        return;
      case 'check.replayed':
        // The merge queue's replays too: `lane.merge` names only the checks of a lane that merged.
        if (event.passed.length > 0)
          this.checkReplays.inc({ where: event.where, result: 'pass' }, event.passed.length);
        if (event.failed.length > 0)
          this.checkReplays.inc({ where: event.where, result: 'fail' }, event.failed.length);
        return;
      case 'agent':
        this.observeAgent(`${event.runId}/${event.seq}`, event.event);
        return;
      default:
        return;
    }
  }

  /** A merge-queue step ended after `seconds`. */
  mergeFinished(seconds: number, outcome: string): void {
    this.mergeSeconds.observe({ outcome }, seconds);
  }

  /** A Redis connection reported an error. */
  redisError(connection: string): void {
    this.redisErrors.inc({ connection });
  }

  /** Counts a job in flight until the returned function is called. */
  jobStarted(): () => void {
    this.inFlight.inc();
    return () => this.inFlight.dec();
  }

  /** The Prometheus text exposition of every metric. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  private observeAgent(session: string, event: AgentEvent): void {
    if (event.type === 'session.started') {
      this.modelOf.set(session, event.model);
      return;
    }
    const model = this.modelOf.get(session) ?? 'unknown';
    if (event.type === 'model.usage') {
      this.modelRequests.inc({ model });
      for (const [field, kind] of Object.entries(TOKEN_KINDS)) {
        const tokens = event.usage[field as keyof typeof TOKEN_KINDS];
        if (tokens > 0) this.tokens.inc({ model, kind }, tokens);
      }
      if (event.costUsd !== null && event.costUsd > 0) this.cost.inc({ model }, event.costUsd);
    } else if (event.type === 'model.error') {
      this.modelErrors.inc({ model, kind: event.kind });
    } else if (event.type === 'tool.ended') {
      this.toolCalls.inc({ tool: event.name, result: event.isError ? 'error' : 'ok' });
    } else if (event.type === 'session.ended') {
      this.modelOf.delete(session);
    }
  }

  private queueDepths(queues: readonly Queue[]): void {
    new Gauge({
      name: 'nightshift_queue_jobs',
      help: 'Jobs in each queue, by queue and state (read from Redis at scrape time).',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const queue of queues) {
          const counts = await queue.getJobCounts(...QUEUE_STATES);
          for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }
      },
    });
  }

  private runGauges(store: RunStore): void {
    let active: Promise<Awaited<ReturnType<RunStore['listRuns']>>> | undefined;
    // Both gauges read the same list of active runs once per scrape.
    const activeRuns = () => {
      active ??= store.listRuns({ status: ACTIVE_STATUSES }).finally(() => {
        setImmediate(() => {
          active = undefined;
        });
      });
      return active;
    };
    new Gauge({
      name: 'nightshift_runs_active',
      help: 'Runs that are active now (created, initializing, building), by status.',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const status of ACTIVE_STATUSES) this.set({ status }, 0);
        for (const run of await activeRuns()) this.inc({ status: run.status });
      },
    });
    new Gauge({
      name: 'nightshift_lanes_busy',
      help: 'Lanes of active runs working on a feature now (lanes mode).',
      registers: [this.registry],
      async collect() {
        const runs = await activeRuns();
        this.set(runs.reduce((sum, run) => sum + run.lanes.length, 0));
      },
    });
  }
}
