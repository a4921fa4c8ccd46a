/**
 * A private `redis-server` per data dir, for when no Redis is configured or answers: found by its files and
 * PING, started once under a lock (shared by every nightshift process of the data dir), left running.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { pingRedis } from './redis-probe.js';

const log = moduleLogger('cli/embedded-redis');

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

/** A private redis-server did not start. */
export class EmbeddedRedisError extends NightshiftError {
  constructor(message: string, logFile: string) {
    super('REDIS_EMBEDDED_FAILED', message, {
      hint: `See ${logFile}; or set REDIS_URL to a running Redis.`,
      exitCode: 2,
    });
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

/** True for an executable regular file. */
export function isExecutable(file: string): boolean {
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
