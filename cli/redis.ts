/**
 * Finding a Redis for the CLI: the configured URL, else the local default, else a private `redis-server`
 * for this data dir (started once, shared by every nightshift process of the data dir, left running).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { RedisOptions as BullRedisOptions, ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { InputError, NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import type { NightshiftConfig } from '../orchestrator/config.js';
import type { TextSink } from './output.js';

const log = moduleLogger('cli/redis');

/** Where the CLI looks when no Redis URL is configured. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** The port a private redis-server prefers (any free port when it is taken). */
export const EMBEDDED_REDIS_PORT = 6390;
/** How long to wait for a private redis-server to answer after starting it. */
const EMBEDDED_START_TIMEOUT_MS = 15_000;
/** A start lock older than this is left over from a crashed process. */
const STALE_LOCK_MS = 30_000;

/** A private redis-server serving one data dir. */
export interface EmbeddedRedis {
  pid: number;
  port: number;
  /** `<dataDir>/redis`: append-only file, pid, port and log. */
  dir: string;
  /** False when another nightshift process had started it and this one reuses it. */
  started: boolean;
  /** Shuts the server down (its data stays in `dir`). */
  stop(): Promise<void>;
}

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

/** A private redis-server did not start. */
export class EmbeddedRedisError extends NightshiftError {
  constructor(message: string, logFile: string) {
    super('REDIS_EMBEDDED_FAILED', message, {
      hint: `See ${logFile}; or set REDIS_URL to a running Redis.`,
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
    (options.notices ?? process.stderr).write(
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
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  redis.on('error', (error) => log.warn({ err: error, url: maskUrl(url) }, 'redis connection error'));
  return {
    redis,
    url,
    connectionOptions: redisOptionsFromUrl(url),
    source,
    embedded,
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** ioredis options (for BullMQ) from a `redis://` / `rediss://` URL. */
export function redisOptionsFromUrl(url: string): BullRedisOptions {
  const parsed = new URL(url);
  const db = Number(parsed.pathname.replace(/^\//, '') || 0);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    db: Number.isInteger(db) ? db : 0,
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

/** The URL with its password replaced by `***`, for messages. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** Result of pingRedis. */
export type RedisProbe = { ok: true; version: string } | { ok: false; error: string };

/** Whether a Redis answers at `url` (PING + server version), without retrying. */
export async function pingRedis(url: string, timeoutMs = 2_000): Promise<RedisProbe> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined); // reported through the rejected promise below
  try {
    await client.connect();
    await client.ping();
    const info = await client.info('server');
    return { ok: true, version: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown' };
  } catch (error) {
    return { ok: false, error: (error as Error).message || String(error) };
  } finally {
    client.disconnect();
  }
}

/** The redis-server binary on PATH (or the usual system dirs), or undefined. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [...(env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin', '/usr/sbin'];
  return dirs
    .filter(Boolean)
    .map((dir) => path.join(dir, 'redis-server'))
    .find(isExecutable);
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The files of a data dir's private redis-server. */
export function embeddedRedisFiles(dataDir: string) {
  const dir = path.join(dataDir, 'redis');
  return {
    dir,
    pidFile: path.join(dir, 'redis.pid'),
    portFile: path.join(dir, 'redis.port'),
    logFile: path.join(dir, 'redis.log'),
    lockFile: path.join(dir, 'start.lock'),
  };
}

/** The private redis-server of `dataDir` when it is running (checked by PING and its data dir), else undefined. */
export async function findEmbeddedRedis(dataDir: string): Promise<EmbeddedRedis | undefined> {
  const files = embeddedRedisFiles(dataDir);
  const port = Number(readText(files.portFile));
  const pid = Number(readText(files.pidFile));
  if (!Number.isInteger(port) || port <= 0 || !Number.isInteger(pid) || pid <= 0) return undefined;
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    // Another program may have taken the port since: only our server serves this data dir.
    const [, dir] = (await client.config('GET', 'dir')) as [string, string];
    if (path.resolve(dir) !== fs.realpathSync(files.dir)) return undefined;
    return embeddedHandle(files.dir, pid, port, false);
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

/** Reuses the data dir's private redis-server or starts one; a start lock keeps concurrent processes to one server. */
export async function ensureEmbeddedRedis(
  dataDir: string,
  redisServer: string,
  preferredPort: number = EMBEDDED_REDIS_PORT,
): Promise<EmbeddedRedis> {
  const files = embeddedRedisFiles(dataDir);
  fs.mkdirSync(files.dir, { recursive: true });
  const deadline = Date.now() + EMBEDDED_START_TIMEOUT_MS * 2;
  for (;;) {
    const running = await findEmbeddedRedis(dataDir);
    if (running) return running;
    if (takeLock(files.lockFile)) break;
    if (Date.now() > deadline) {
      throw new EmbeddedRedisError(
        `Another process holds ${files.lockFile} and no Redis came up.`,
        files.logFile,
      );
    }
    await sleep(200);
  }
  try {
    const running = await findEmbeddedRedis(dataDir);
    if (running) return running;
    return await startEmbeddedRedis(files, redisServer, preferredPort);
  } finally {
    fs.rmSync(files.lockFile, { force: true });
  }
}

function takeLock(lockFile: string): boolean {
  try {
    fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = Date.now() - (fs.statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_LOCK_MS) fs.rmSync(lockFile, { force: true });
    return false;
  }
}

async function startEmbeddedRedis(
  files: ReturnType<typeof embeddedRedisFiles>,
  redisServer: string,
  preferredPort: number,
): Promise<EmbeddedRedis> {
  const port = preferredPort > 0 && (await isPortFree(preferredPort)) ? preferredPort : await freePort();
  fs.rmSync(files.pidFile, { force: true });
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--appendonly',
    'yes',
    '--dir',
    files.dir,
    '--daemonize',
    'yes',
    '--pidfile',
    files.pidFile,
    '--logfile',
    files.logFile,
  ];
  const started = await new Promise<string | null>((resolve) => {
    execFile(redisServer, args, { timeout: EMBEDDED_START_TIMEOUT_MS }, (error, stdout, stderr) =>
      resolve(error ? `${error.message} ${stdout}${stderr}`.trim() : null),
    );
  });
  if (started !== null) {
    throw new EmbeddedRedisError(`redis-server did not start: ${started}`, files.logFile);
  }
  const deadline = Date.now() + EMBEDDED_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const pid = Number(readText(files.pidFile));
    if (pid > 0 && (await pingRedis(`redis://127.0.0.1:${port}`, 1_000)).ok) {
      fs.writeFileSync(files.portFile, String(port));
      log.info({ pid, port, dir: files.dir }, 'private redis-server started');
      return embeddedHandle(files.dir, pid, port, true);
    }
    await sleep(100);
  }
  throw new EmbeddedRedisError(
    `redis-server on port ${port} did not answer within ${EMBEDDED_START_TIMEOUT_MS / 1000}s.`,
    files.logFile,
  );
}

function embeddedHandle(dir: string, pid: number, port: number, started: boolean): EmbeddedRedis {
  return { pid, port, dir, started, stop: () => stopEmbeddedRedis(dir, pid, port) };
}

async function stopEmbeddedRedis(dir: string, pid: number, port: number): Promise<void> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.call('SHUTDOWN');
  } catch {
    // SHUTDOWN closes the connection instead of replying; a dead server is already stopped.
  } finally {
    client.disconnect();
  }
  const deadline = Date.now() + 10_000;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  fs.rmSync(path.join(dir, 'redis.port'), { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1' }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
