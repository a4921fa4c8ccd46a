import type { Command } from 'commander';
import { InputError } from '../core/errors.js';
import { harnessSecrets } from '../orchestrator/harness-secrets.js';
import { tidyFinishedClones, tidyPending } from '../orchestrator/housekeeping.js';
import { handleScheduledStart } from '../orchestrator/schedules.js';
import { providerFactory } from '../workers/provider-factory.js';
import { type RunningWorker, startWorker } from '../workers/worker.js';
import {
  type CliDeps,
  type OpenCliContext,
  openCliContext,
  orchestratorOptions,
  resolveDeps,
} from './context.js';
import { positiveInt } from './options.js';

/** Starts a worker on an open CLI context (shared by `worker`, `run` and `demo`). */
export async function startCliWorker(
  context: OpenCliContext,
  env: NodeJS.ProcessEnv,
  concurrency?: number,
): Promise<RunningWorker> {
  const { config } = context;
  return startWorker({
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
        afterReconcile: async (orchestrator) => {
          await tidyPending({ orchestrator, dataDir: context.dataDir });
          await tidyFinishedClones({ orchestrator, dataDir: context.dataDir });
        },
      }),
    },
    secrets: await harnessSecrets({ env, config, home: context.dataDir }),
    failover: { ...config.worker.failover, ...stalledIntervalFromEnv(env) },
    watchConnection: (emitter) => context.outage.watch(emitter),
  });
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

/** `nightshift worker [--concurrency N]`: runs sessions from the queue until SIGTERM/SIGINT. */
export function registerWorkerCommand(program: Command, deps: CliDeps = {}): void {
  program
    .command('worker')
    .description('run a worker process that executes sessions from the queue (until SIGTERM/SIGINT)')
    .option('--concurrency <n>', 'sessions at once in this process', positiveInt('--concurrency'))
    .option('--config <file>', 'config file (default ./nightshift.config.json)')
    .action(async (options: { concurrency?: number; config?: string }) => {
      const resolved = resolveDeps(deps);
      const context = await openCliContext(orchestratorOptions(resolved, options.config));
      const worker = await startCliWorker(context, resolved.env, options.concurrency);
      resolved.stderr.write(`nightshift worker ${worker.workerId} started (Ctrl-C to stop)\n`);
      const signal = await untilSignal();
      resolved.stderr.write(
        `${signal}: finishing running sessions (they checkpoint if the grace period ends)…\n`,
      );
      await worker.close();
      await context.close();
    });
}
