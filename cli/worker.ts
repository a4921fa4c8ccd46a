import type { Command } from 'commander';
import { InputError } from '../core/errors.js';
import { harnessSecrets } from '../orchestrator/harness-secrets.js';
import { tidyFinishedClones, tidyPending } from '../orchestrator/housekeeping.js';
import { handleScheduledStart } from '../orchestrator/schedules.js';
import { NightshiftMetrics } from '../workers/metrics.js';
import { type MetricsServer, startMetricsServer } from '../workers/metrics-server.js';
import { providerFactory } from '../workers/provider-factory.js';
import { type RunningWorker, startWorker } from '../workers/worker.js';
import {
  type CliDeps,
  type OpenCliContext,
  openCliContext,
  orchestratorOptions,
  resolveDeps,
} from './context.js';
import { intInRange, positiveInt } from './options.js';
import { startTracing } from './telemetry.js';

/** Starts a worker on an open CLI context (shared by `worker`, `run` and `demo`). */
export async function startCliWorker(
  context: OpenCliContext,
  env: NodeJS.ProcessEnv,
  concurrency?: number,
  metrics?: NightshiftMetrics,
): Promise<RunningWorker> {
  const { config } = context;
  const tracing = startTracing(env);
  const worker = await startWorker({
    ...(metrics ? { metrics } : {}),
    orchestrator: context.orchestrator,
    connection: context.connection.connectionOptions,
    dataDir: context.dataDir,
    concurrency: concurrency ?? config.worker.concurrency,
    shutdownGraceMs: config.worker.shutdownGraceSeconds * 1000,
    ...(config.chromiumPath ? { chromiumPath: config.chromiumPath } : {}),
    createProvider: providerFactory(config, env),
    controlHandlers: {
      scheduledStart: handleScheduledStart,
      // Finished runs whose last session was still in flight are tidied once it has ended.
      ...(config.housekeeping.removeOnFinish && {
        afterReconcile: (orchestrator) => tidyPending({ orchestrator, dataDir: context.dataDir }),
      }),
    },
    ...(config.housekeeping.removeOnFinish && {
      dataDirChores: (orchestrator) => tidyFinishedClones({ orchestrator, dataDir: context.dataDir }),
    }),
    secrets: await harnessSecrets({ env, config, home: context.dataDir }),
    failover: { ...config.worker.failover, ...stalledIntervalFromEnv(env) },
    watchConnection: (emitter) => context.outage.watch(emitter),
  }).catch(async (error: unknown) => {
    await tracing?.shutdown();
    throw error;
  });
  if (!tracing) return worker;
  // The spans of the last sessions are exported before the process ends.
  return { workerId: worker.workerId, close: () => worker.close().finally(() => tracing.shutdown()) };
}

/**
 * `NIGHTSHIFT_STALLED_INTERVAL_MS`: how often the worker looks for jobs of dead workers (overrides
 * `worker.failover.stalledIntervalMs`, default 4 s). Shorter means a killed worker's session restarts sooner,
 * at the cost of more Redis round-trips.
 */
export function stalledIntervalFromEnv(env: NodeJS.ProcessEnv): { stalledIntervalMs?: number } {
  const raw = env.NIGHTSHIFT_STALLED_INTERVAL_MS;
  if (raw === undefined || raw === '') return {};
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed < 100) {
    throw new InputError(
      'ENV_INVALID',
      `NIGHTSHIFT_STALLED_INTERVAL_MS must be a whole number of milliseconds ≥ 100, not "${raw}".`,
      {
        hint: "e.g. NIGHTSHIFT_STALLED_INTERVAL_MS=2000, or unset it for the config file's value (default 4000).",
      },
    );
  }
  return { stalledIntervalMs: parsed };
}

/** Resolves on the first SIGTERM/SIGINT; a second one exits at once. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.removeListener('SIGTERM', onSignal);
      process.removeListener('SIGINT', onSignal);
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve(signal);
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
}

/** Options of the `worker` command. */
interface WorkerCommandOptions {
  concurrency?: number;
  config?: string;
  metricsPort?: number;
  metricsHost?: string;
}

/**
 * `nightshift worker [--concurrency N] [--metrics-port P]`: runs sessions from the queue until SIGTERM/SIGINT. The
 * first signal drains: no new jobs, sessions in flight get `worker.shutdownGraceSeconds` to finish, then checkpoint
 * and are released to another worker; a second signal exits at once.
 */
export function registerWorkerCommand(program: Command, deps: CliDeps = {}): void {
  program
    .command('worker')
    .description('run a worker process that executes sessions from the queue (until SIGTERM/SIGINT)')
    .option('--concurrency <n>', 'sessions at once in this process', positiveInt('--concurrency'))
    .option('--config <file>', 'config file (default ./nightshift.config.json)')
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics at http://<metrics-host>:<port>/metrics (0 = any free port)',
      intInRange('--metrics-port', 0, 65535, 9464),
    )
    .option('--metrics-host <host>', 'interface of the metrics endpoint (default 127.0.0.1)')
    .action(async (options: WorkerCommandOptions) => {
      const resolved = resolveDeps(deps);
      const context = await openCliContext(orchestratorOptions(resolved, options.config));
      let metricsServer: MetricsServer | undefined;
      let metrics: NightshiftMetrics | undefined;
      if (options.metricsPort !== undefined) {
        const { orchestrator } = context;
        metrics = new NightshiftMetrics({
          store: orchestrator.store,
          queues: [orchestrator.queues.sessions, orchestrator.queues.control],
        });
        metricsServer = await startMetricsServer(metrics, {
          port: options.metricsPort,
          ...(options.metricsHost ? { host: options.metricsHost } : {}),
        });
      }
      const worker = await startCliWorker(context, resolved.env, options.concurrency, metrics);
      resolved.stderr.write(`nightshift worker ${worker.workerId} started (Ctrl-C to stop)\n`);
      if (metricsServer) resolved.stderr.write(`metrics: ${metricsServer.url}\n`);
      const signal = await untilSignal();
      resolved.stderr.write(
        `${signal}: draining: no new sessions; running ones get ${context.config.worker.shutdownGraceSeconds} s to finish, then checkpoint for another worker…\n`,
      );
      await worker.close();
      await metricsServer?.close();
      await context.close();
    });
}
