/** What a CLI command works with: the validated config and an Orchestrator on an open Redis, closed afterwards. */
import type { Redis } from 'ioredis';
import { parseRedisUrl } from '../core/redis-url.js';
import type { NightshiftConfig } from '../orchestrator/config.js';
import { loadConfig } from '../orchestrator/config-load.js';
import type { Notifier } from '../orchestrator/notifications.js';
import type { Orchestrator, StatusListener } from '../orchestrator/orchestrator.js';
import { openQueues, type Queues } from '../orchestrator/queues.js';
import { type RedisOutageWatch, watchRedisOutages } from '../orchestrator/redis-outage.js';
import { redisWaitFor } from '../orchestrator/replica-ack.js';
import { RunStore } from '../orchestrator/run/index.js';
import type { TextSink } from './output.js';
import { type ConnectRedisOptions, connectRedis, type RedisConnection } from './redis.js';
import { maskUrl } from './redis-probe.js';
import { type TerminalSink, terminalSink } from './terminal-text.js';

/** What every command's action receives. */
export interface CliContext {
  config: NightshiftConfig;
  /** The config file it came from (null = defaults and environment only). */
  configSource: string | null;
  orchestrator: Orchestrator;
  /** The Redis URL in use (show it with `maskUrl`). */
  redisUrl: string;
  /** The open connection (BullMQ `connectionOptions` for workers; the private redis-server, if any). */
  connection: RedisConnection;
  /** Says once when Redis is lost and once when it is back; every connection's errors go through it. */
  outage: RedisOutageWatch;
  dataDir: string;
}

/** Builds the listener told about every status change (webhooks), once the store is open. */
export type StatusListenerFactory = (parts: {
  config: NightshiftConfig;
  store: RunStore;
  redis: Redis;
  queues: Queues;
}) => (StatusListener & Partial<Pick<Notifier, 'flush' | 'notifyEvents'>>) | undefined;

/** Where withOrchestrator finds its config and Redis. */
export interface OrchestratorOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** An explicit config file (`--config`); otherwise `$NIGHTSHIFT_CONFIG` or `<cwd>/nightshift.config.json`. */
  configFile?: string;
  /** Notifications: builds `orchestrator.onStatusChange`. */
  onStatusChange?: StatusListenerFactory;
  /** Redis lookup overrides (tests: a dead default URL, a fixed port). */
  redis?: Omit<ConnectRedisOptions, 'dataDir'>;
  /** Where notices (a started private Redis) go; default stderr. */
  notices?: TextSink;
  /** Clock (tests). */
  now?: () => Date;
}

/** An open CliContext and how to close it (for long-running commands that do not fit a callback). */
export interface OpenCliContext extends CliContext {
  close(): Promise<void>;
}

/** Loads the config (InputError naming bad fields), connects Redis and opens the store and queues. */
export async function openCliContext(options: OrchestratorOptions): Promise<OpenCliContext> {
  const { config, source } = loadConfig({ cwd: options.cwd, env: options.env, file: options.configFile });
  const connection = await connectRedis(config, {
    ...options.redis,
    dataDir: config.dataDir,
    notices: options.redis?.notices ?? options.notices,
  });
  const { redis } = connection;
  const store = new RunStore(redis, {
    prefix: config.keyPrefix,
    eventLogMaxLength: config.eventLogMaxLength,
    now: options.now,
    redisWait: redisWaitFor(parseRedisUrl(connection.url), config.redisWait),
  });
  const queues = openQueues(connection.connectionOptions, config.keyPrefix);
  const notices = terminalSink(options.redis?.notices ?? options.notices ?? process.stderr);
  const outage = watchRedisOutages({
    url: maskUrl(connection.url),
    primary: redis,
    notify: (line) => notices.write(`nightshift: ${line}\n`),
  });
  for (const emitter of [redis, queues.sessions, queues.control]) outage.watch(emitter);
  const listener = options.onStatusChange?.({ config, store, redis, queues });
  const orchestrator: Orchestrator = {
    redis,
    store,
    queues,
    prefix: config.keyPrefix,
    now: options.now ?? (() => new Date()),
    onStatusChange: listener,
    ...(listener?.notifyEvents ? { onSessionEvents: listener.notifyEvents.bind(listener) } : {}),
  };
  return {
    config,
    configSource: source,
    orchestrator,
    redisUrl: connection.url,
    connection,
    outage,
    dataDir: config.dataDir,
    close: async () => {
      // Connections closed on purpose are not an outage.
      outage.close();
      // Webhooks are sent in the background: let them finish (or give up) before the connections go.
      await listener?.flush?.();
      await Promise.allSettled([queues.close(), store.close()]);
      await connection.close();
    },
  };
}

/** Runs `fn` with an open CliContext and closes everything afterwards (so the process can exit), even on error. */
export async function withOrchestrator<T>(
  options: OrchestratorOptions,
  fn: (context: CliContext) => Promise<T>,
): Promise<T> {
  const context = await openCliContext(options);
  try {
    return await fn(context);
  } finally {
    await context.close();
  }
}

/** What the commands take from their surroundings; tests inject these instead of touching the process. */
export interface CliDeps {
  cwd?: () => string;
  env?: NodeJS.ProcessEnv;
  stdout?: TextSink;
  stderr?: TextSink;
  /** Sets the exit code without throwing (default: `process.exitCode`). */
  setExitCode?: (code: number) => void;
  now?: () => Date;
  /** Passed on to withOrchestrator. */
  onStatusChange?: StatusListenerFactory;
  redis?: Omit<ConnectRedisOptions, 'dataDir'>;
}

/** CliDeps with the process defaults filled in. */
export interface ResolvedDeps {
  cwd: () => string;
  env: NodeJS.ProcessEnv;
  /** stdout as text: what the workspace or a model wrote is escaped wherever a command prints it. */
  stdout: TerminalSink;
  /** stderr as text, like stdout. */
  stderr: TerminalSink;
  setExitCode: (code: number) => void;
  now: () => Date;
  onStatusChange?: StatusListenerFactory;
  redis?: Omit<ConnectRedisOptions, 'dataDir'>;
}

/** Fills in the process defaults; stdout and stderr (given or the process's) always go through a terminal sink. */
export function resolveDeps(deps: CliDeps = {}): ResolvedDeps {
  return {
    cwd: deps.cwd ?? (() => process.cwd()),
    env: deps.env ?? process.env,
    stdout: terminalSink(deps.stdout ?? process.stdout),
    stderr: terminalSink(deps.stderr ?? process.stderr),
    setExitCode:
      deps.setExitCode ??
      ((code) => {
        process.exitCode = code;
      }),
    now: deps.now ?? (() => new Date()),
    onStatusChange: deps.onStatusChange,
    redis: deps.redis,
  };
}

/** withOrchestrator options from resolved deps and a command's `--config`. */
export function orchestratorOptions(deps: ResolvedDeps, configFile?: string): OrchestratorOptions {
  return {
    cwd: deps.cwd(),
    env: deps.env,
    configFile,
    onStatusChange: deps.onStatusChange,
    redis: deps.redis,
    notices: deps.stderr,
    now: deps.now,
  };
}
