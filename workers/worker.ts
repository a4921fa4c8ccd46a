import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { type ConnectionOptions, Worker } from 'bullmq';
import type { ModelProvider } from '../agent/messages.js';
import { moduleLogger } from '../core/log.js';
import type { BrowserSource } from '../evaluation/browser-source.js';
import {
  bullWorkerOptions,
  FAILOVER_DEFAULTS,
  type FailoverConfig,
  runLockTiming,
} from '../orchestrator/failover.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { bullPrefix, CONTROL_QUEUE, RECONCILE_EVERY_MS, SESSION_QUEUE } from '../orchestrator/queues.js';
import type { ErrorEmitter } from '../orchestrator/redis-outage.js';
import { type BrowserPool, createBrowserPool } from './browser-pool.js';
import { type ControlHandlers, processControlJob } from './control-processor.js';
import { closingInBackground, createDeferredWork, type DeferredWork } from './deferred-close.js';
import type { NightshiftMetrics } from './metrics.js';
import { processSessionJob } from './session-processor.js';
import { preloadPlaywright } from './shared-chromium.js';

const log = moduleLogger('workers/worker');

/** Options of a worker process. */
export interface WorkerOptions {
  orchestrator: Orchestrator;
  /** A separate connection for BullMQ's blocking commands (`maxRetriesPerRequest: null`). */
  connection: ConnectionOptions;
  dataDir: string;
  /** Sessions run at once by this process (default 1). */
  concurrency?: number;
  /** After SIGTERM: how long sessions get to finish before they are told to checkpoint and stop (default 60 s). */
  shutdownGraceMs?: number;
  createProvider(modelId: string): ModelProvider;
  /** The browser; default a pool on the configured Chromium. */
  browser?: BrowserPool;
  chromiumPath?: string;
  /** Scheduled starts and other control jobs handled by other modules. */
  controlHandlers?: ControlHandlers;
  /** Chores on this process's own data dir (its clones of finished runs), on a timer of its own (docs/architecture.md). */
  dataDirChores?(orchestrator: Orchestrator): Promise<unknown>;
  /** How often {@link WorkerOptions.dataDirChores} run, in ms (default the reconcile interval, 30 s). */
  dataDirChoresEveryMs?: number;
  secrets?: readonly string[];
  /** Job and run lock timing (default {@link FAILOVER_DEFAULTS}: a killed worker's session restarts in about 10 s). */
  failover?: FailoverConfig;
  /** Takes the BullMQ workers' `error` events (the CLI's RedisOutageWatch); default: each is logged as an error. */
  watchConnection?: (emitter: ErrorEmitter) => void;
  /** Counts this worker's sessions, verdicts, merges, model use and Redis errors (served by `--metrics-port`). */
  metrics?: NightshiftMetrics;
}

/** A running worker process. */
export interface RunningWorker {
  readonly workerId: string;
  /** Stops fetching, lets sessions finish within the grace period, then aborts them (they WIP-commit). */
  close(): Promise<void>;
}

/** A worker id unique across machines and restarts: host, pid and a random suffix. */
export function newWorkerId(): string {
  return `${os.hostname().replace(/[^A-Za-z0-9_-]/g, '-')}-${process.pid}-${randomBytes(2).toString('hex')}`;
}

/**
 * Starts a worker: a BullMQ Worker on the session queue (configurable concurrency, one shared browser) and
 * one on the control queue (reconcile ticks every 30 s via a job scheduler, advances, scheduled starts).
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { orchestrator } = options;
  const workerId = newWorkerId();
  const shutdown = new AbortController();
  const browser =
    options.browser ??
    createBrowserPool(options.chromiumPath ? { executablePath: options.chromiumPath } : {});
  // Evaluations save their trace after the result is recorded (off the handoff); shutdown waits for them.
  const deferred = createDeferredWork();
  const sessionBrowser = closingInBackground(browser, deferred);
  const failover = options.failover ?? FAILOVER_DEFAULTS;
  // Before the first job: loaded at the first evaluation, it froze the sessions already running for about a second.
  // A failure here is reported by the first launch, with its hint.
  await preloadPlaywright().catch((error: unknown) =>
    log.warn({ err: error }, 'playwright-core did not load'),
  );
  const { sessions, control } = queueWorkers(options, {
    workerId,
    browser: sessionBrowser,
    shutdown,
    failover,
  });
  await orchestrator.queues.control.upsertJobScheduler(
    'reconcile',
    { every: RECONCILE_EVERY_MS },
    { name: 'reconcile', data: { kind: 'reconcile' }, opts: { removeOnComplete: 100, removeOnFail: 100 } },
  );
  const stopMetrics = options.metrics ? watchForMetrics(orchestrator, options.metrics) : () => undefined;
  const { dataDirChores } = options;
  const stopChores = dataDirChores
    ? repeatEvery(options.dataDirChoresEveryMs ?? RECONCILE_EVERY_MS, () =>
        dataDirChores(orchestrator).catch((error: unknown) =>
          log.warn({ err: error }, "the data dir's chores failed"),
        ),
      )
    : async () => undefined;
  log.info({ workerId, concurrency: options.concurrency ?? 1, failover }, 'worker started');
  let closing: Promise<void> | undefined;
  return {
    workerId,
    close: () => {
      closing ??= closeWorker({
        stopMetrics,
        stopChores,
        sessions,
        control,
        browser,
        deferred,
        shutdown,
        graceMs: options.shutdownGraceMs ?? 60_000,
        workerId,
      });
      return closing;
    },
  };
}

/** The BullMQ Workers of the session queue (the role sessions) and of the control queue, with their logging. */
function queueWorkers(
  options: WorkerOptions,
  worker: { workerId: string; browser: BrowserSource; shutdown: AbortController; failover: FailoverConfig },
): { sessions: Worker; control: Worker } {
  const { orchestrator } = options;
  const { workerId, shutdown, failover } = worker;
  // Each Worker checks for stalled jobs as it starts (BullMQ runs the check at once, then every interval).
  const common = {
    connection: options.connection,
    prefix: bullPrefix(orchestrator.prefix),
    ...bullWorkerOptions(failover),
  };
  const sessions: Worker = new Worker(
    SESSION_QUEUE,
    (job) =>
      countedJob(options.metrics, () =>
        processSessionJob(
          {
            orchestrator,
            dataDir: options.dataDir,
            workerId,
            browser: worker.browser,
            createProvider: options.createProvider,
            shutdown: shutdown.signal,
            rateLimitQueue: (ms) => sessions.rateLimit(ms),
            runLock: runLockTiming(failover),
            secrets: options.secrets ?? [],
            ...(options.metrics ? { metrics: options.metrics } : {}),
          },
          job,
        ),
      ),
    { ...common, concurrency: options.concurrency ?? 1 },
  );
  const control = new Worker(
    CONTROL_QUEUE,
    (job) => processControlJob(orchestrator, options.controlHandlers ?? {}, job),
    {
      ...common,
      concurrency: 2,
    },
  );
  for (const queueWorker of [sessions, control]) {
    queueWorker.on('failed', (job, error) =>
      log.error({ err: error, jobId: job?.id, queue: queueWorker.name }, 'job failed'),
    );
    queueWorker.on('error', () => options.metrics?.redisError('queue'));
    if (options.watchConnection) options.watchConnection(queueWorker);
    else
      queueWorker.on('error', (error) => log.error({ err: error, queue: queueWorker.name }, 'worker error'));
  }
  return { sessions, control };
}

/** Counts a job as in flight while it runs. */
async function countedJob<T>(metrics: NightshiftMetrics | undefined, run: () => Promise<T>): Promise<T> {
  const done = metrics?.jobStarted();
  try {
    return await run();
  } finally {
    done?.();
  }
}

/** Feeds the metrics every event this process appends, and the command connection's errors; returns the stop. */
function watchForMetrics(orchestrator: Orchestrator, metrics: NightshiftMetrics): () => void {
  const stopObserving = orchestrator.store.observeAppends((_runId, event) => metrics.observe(event));
  const onError = () => metrics.redisError('commands');
  orchestrator.redis.on('error', onError);
  return () => {
    stopObserving();
    orchestrator.redis.off('error', onError);
  };
}

/**
 * Runs a task every `ms` (the next wait starts when the task ends, so runs never overlap) without keeping the
 * process alive; the returned stop waits for a run in progress.
 */
export function repeatEvery(ms: number, task: () => Promise<unknown>): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const schedule = () => {
    timer = setTimeout(() => {
      // A task that throws or rejects is the caller's to report; the next one runs all the same.
      running = Promise.resolve()
        .then(task)
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) schedule();
        });
    }, ms);
    timer.unref();
  };
  schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

async function closeWorker(parts: {
  stopMetrics: () => void;
  stopChores: () => Promise<void>;
  sessions: Worker;
  control: Worker;
  browser: BrowserPool;
  deferred: DeferredWork;
  shutdown: AbortController;
  graceMs: number;
  workerId: string;
}): Promise<void> {
  log.info({ workerId: parts.workerId, graceMs: parts.graceMs }, 'worker shutting down: no new sessions');
  const timer = setTimeout(() => {
    log.warn(
      { workerId: parts.workerId },
      'grace period over: asking running sessions to checkpoint and stop',
    );
    parts.shutdown.abort(new Error('the worker is shutting down'));
  }, parts.graceMs);
  try {
    await Promise.all([parts.sessions.close(), parts.control.close()]);
  } finally {
    clearTimeout(timer);
    // Before the caller closes the connections the chores use, whatever the queues' close did.
    await parts.stopChores();
    await parts.deferred.drain();
    await parts.browser.close();
    parts.stopMetrics();
  }
  log.info({ workerId: parts.workerId }, 'worker stopped');
}
