/**
 * Finding a Redis for the CLI: the configured URL, else the local default, else a private `redis-server`
 * for this data dir (started once, shared by every nightshift process of the data dir, left running).
 */
import type { ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { InputError, NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import type { NightshiftConfig } from '../orchestrator/config.js';
import { openBullConnection, openRedis } from '../orchestrator/redis-client.js';
import { type EmbeddedRedis, ensureEmbeddedRedis, findRedisServer, isExecutable } from './embedded-redis.js';
import type { TextSink } from './output.js';
import { DEFAULT_REDIS_URL, maskUrl, pingRedis } from './redis-probe.js';
import { terminalSink } from './terminal-text.js';

const log = moduleLogger('cli/redis');

/** An open connection and how it was found. */
export interface RedisConnection {
  /** Client for our own commands (`maxRetriesPerRequest: null`, as BullMQ needs). */
  redis: Redis;
  /** The URL in use, password included: show it with `maskUrl`. */
  url: string;
  /** Options for BullMQ queues and workers (they open their own connections). */
  connectionOptions: ConnectionOptions;
  /** `configured` (REDIS_URL / redisUrl), `default` (127.0.0.1:6379) or `embedded`. */
  source: 'configured' | 'default' | 'embedded';
  embedded?: EmbeddedRedis;
  /** Closes the client (a private redis-server keeps running). */
  close(): Promise<void>;
}

/** How connectRedis looks for a Redis. */
export interface ConnectRedisOptions {
  /** The data dir; a private redis-server keeps its files in `<dataDir>/redis`. */
  dataDir: string;
  /** Start a private redis-server when nothing answers (default true). */
  allowEmbedded?: boolean;
  /** Tried when no URL is configured (default DEFAULT_REDIS_URL); tests point it at a dead port. */
  defaultUrl?: string;
  /** Port of a new private server (default EMBEDDED_REDIS_PORT, else any free port; 0 = any free port). */
  embeddedPort?: number;
  /** The redis-server binary (default: found on PATH). */
  redisServerPath?: string;
  /** Where the one-line notice about a started private server goes (default stderr). */
  notices?: TextSink;
}

/** The configured Redis does not answer. */
export class RedisUnreachableError extends InputError {
  constructor(url: string, reason: string) {
    super('REDIS_UNREACHABLE', `Redis at ${maskUrl(url)} does not answer: ${reason}`, {
      hint:
        'Check that Redis runs there and that host, port and password are right (REDIS_URL, NIGHTSHIFT_REDIS_URL ' +
        'or redisUrl in nightshift.config.json); unset them to use 127.0.0.1:6379 or a private redis-server.',
    });
  }
}

/** No Redis anywhere and no redis-server to start. */
export class RedisUnavailableError extends NightshiftError {
  constructor(defaultUrl: string, detail: string) {
    super('REDIS_UNAVAILABLE', `No Redis: nothing answers at ${maskUrl(defaultUrl)} and ${detail}.`, {
      hint:
        'Install Redis (`apt-get install redis-server`; nightshift then starts a private one by itself), ' +
        'or set REDIS_URL=redis://host:port to a Redis 6.2+ server.',
      exitCode: 2,
    });
  }
}

/** Connects to the configured Redis, else 127.0.0.1:6379, else a private redis-server (started if needed). */
export async function connectRedis(
  config: Pick<NightshiftConfig, 'redisUrl'>,
  options: ConnectRedisOptions,
): Promise<RedisConnection> {
  if (config.redisUrl) {
    const probe = await pingRedis(config.redisUrl);
    if (!probe.ok) throw new RedisUnreachableError(config.redisUrl, probe.error);
    return openConnection(config.redisUrl, 'configured');
  }
  const defaultUrl = options.defaultUrl ?? DEFAULT_REDIS_URL;
  if ((await pingRedis(defaultUrl)).ok) return openConnection(defaultUrl, 'default');
  if (options.allowEmbedded === false) {
    throw new RedisUnavailableError(defaultUrl, 'starting a private redis-server was not allowed');
  }
  const server = options.redisServerPath ?? findRedisServer();
  if (!server || !isExecutable(server)) {
    throw new RedisUnavailableError(defaultUrl, 'redis-server is not installed');
  }
  const embedded = await ensureEmbeddedRedis(options.dataDir, server, options.embeddedPort);
  if (embedded.started) {
    terminalSink(options.notices ?? process.stderr).write(
      `nightshift: started a private Redis (redis-server pid ${embedded.pid}, 127.0.0.1:${embedded.port}, ` +
        `data in ${embedded.dir}). It keeps running for the workers and dashboard of this data dir; ` +
        `stop it with \`redis-cli -p ${embedded.port} shutdown\`.\n`,
    );
  }
  return openConnection(`redis://127.0.0.1:${embedded.port}`, 'embedded', embedded);
}

function openConnection(
  url: string,
  source: RedisConnection['source'],
  embedded?: EmbeddedRedis,
): RedisConnection {
  const redis = openRedis(url);
  // Never unhandled (ioredis would print it); an outage is told once by the context's RedisOutageWatch.
  redis.on('error', (error) => log.debug({ err: error, url: maskUrl(url) }, 'redis connection error'));
  const bull = openBullConnection(url);
  return {
    redis,
    url,
    connectionOptions: bull.connection,
    source,
    embedded,
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
      await bull.close();
    },
  };
}
