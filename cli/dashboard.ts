import type { Queue } from 'bullmq';
import type { Command } from 'commander';
import { InputError } from '../core/errors.js';
import type { RunControls } from '../dashboard/controls.js';
import type { PlanDesk } from '../dashboard/plan-desk.js';
import { createDashboardServer, type DashboardServer } from '../dashboard/server.js';
import type { NextScheduledStart } from '../dashboard/views.js';
import type { NightshiftConfig } from '../orchestrator/config.js';
import { loadConfig } from '../orchestrator/config-load.js';
import { openRedis } from '../orchestrator/redis-client.js';
import { RunStore } from '../orchestrator/run/index.js';
import { DEFAULT_REDIS_URL } from './redis-probe.js';
import { terminalSink } from './terminal-text.js';

/** What the dashboard command serves, opened from the validated config. */
export interface DashboardResources {
  store: RunStore;
  /** BullMQ queue(s) for bull-board at /queues. */
  queue?: Queue | readonly Queue[];
  /** The orchestrator's run controls (default: store-only controls). */
  controls?: RunControls;
  nextScheduledStart?: NextScheduledStart;
  /** Workers connected to the session queue (absent: the dashboard cannot tell). */
  connectedWorkers?: () => Promise<number | null>;
  /** The new-run form's planner sessions (closed by `close`). */
  planning?: PlanDesk;
  close(): Promise<void>;
}

/** Opens what the dashboard needs; the lead's wiring passes one that also opens the queue and real controls. */
export type OpenDashboardResources = (config: NightshiftConfig) => Promise<DashboardResources>;

/** Default: a Redis client and a RunStore under the configured prefix (no queue, store-only controls). */
export const openStoreOnly: OpenDashboardResources = async (config) => {
  const redis = openRedis(config.redisUrl ?? DEFAULT_REDIS_URL);
  const store = new RunStore(redis, {
    prefix: config.keyPrefix,
    eventLogMaxLength: config.eventLogMaxLength,
  });
  return {
    store,
    close: async () => {
      await store.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
};

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InputError('DASHBOARD_PORT_INVALID', `--port ${value} is not a port number.`, {
      hint: 'Use 0–65535.',
    });
  }
  return port;
}

/** Options of the `dashboard` command. */
interface DashboardCommandOptions {
  config?: string;
  host?: string;
  port?: number;
  json?: boolean;
}

/**
 * Registers `nightshift dashboard [--host H] [--port P] [--json]`: serves the dashboard until SIGINT/SIGTERM.
 * Host, port and token default to the config (`NIGHTSHIFT_DASHBOARD_HOST|PORT|TOKEN`).
 */
export function registerDashboardCommand(
  program: Command,
  open: OpenDashboardResources = openStoreOnly,
): Command {
  return program
    .command('dashboard')
    .description('serve the web dashboard and JSON API')
    .option('--host <host>', 'interface to bind (anything but loopback needs NIGHTSHIFT_DASHBOARD_TOKEN)')
    .option('--port <port>', 'port (0 = any free port)', parsePort)
    .option('--json', 'print {"url"} as JSON once listening')
    .option('--config <file>', 'config file (default: $NIGHTSHIFT_CONFIG or ./nightshift.config.json)')
    .action(async (options: DashboardCommandOptions) => {
      const { config } = loadConfig({ cwd: process.cwd(), env: process.env, file: options.config });
      const resources = await open(config);
      let server: DashboardServer;
      try {
        server = await createDashboardServer({
          store: resources.store,
          controls: resources.controls,
          queue: resources.queue,
          nextScheduledStart: resources.nextScheduledStart,
          ...(resources.connectedWorkers ? { connectedWorkers: resources.connectedWorkers } : {}),
          ...(resources.planning ? { planning: resources.planning } : {}),
          host: options.host ?? config.dashboard.host,
          port: options.port ?? config.dashboard.port,
          token: config.dashboard.token,
          dataDir: config.dataDir,
        });
      } catch (error) {
        await resources.close();
        throw error;
      }
      const stdout = terminalSink(process.stdout);
      if (options.json) stdout.write(`${JSON.stringify({ url: server.url })}\n`);
      else {
        const hint = config.dashboard.token ? ' (open it once with ?token=<NIGHTSHIFT_DASHBOARD_TOKEN>)' : '';
        stdout.write(`nightshift dashboard: ${server.url}${hint}\n`);
      }
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      await resources.close();
    });
}
