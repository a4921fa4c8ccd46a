/**
 * A Redis outage as a person should see it: one plain line when the connection is lost (with the reason and that
 * it retries) and one when Redis answers again — not the stack trace of every failed reconnect of every
 * connection (ioredis clients, BullMQ queues and workers each retry on their own, a few times a second).
 */
import { moduleLogger } from '../core/log.js';

const log = moduleLogger('orchestrator/redis-outage');

/** Error codes of a connection that cannot reach Redis (as opposed to a command Redis refused). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Something that emits connection errors: an ioredis client, a BullMQ Queue or Worker. */
export interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** The client whose state says whether Redis answers (ioredis: `status` is `ready` when it does). */
export interface PrimaryConnection {
  readonly status: string;
  on(event: 'ready', listener: () => void): unknown;
}

/** Options of {@link watchRedisOutages}. */
export interface RedisOutageOptions {
  /** The Redis URL without its password (shown in the lines). */
  url: string;
  primary: PrimaryConnection;
  /** Where the two lines of an outage go (a terminal, stderr of a service). */
  notify(line: string): void;
  /** Milliseconds clock (tests). */
  now?: () => number;
}

/** Watches the connections of one process; `watch` routes an emitter's errors to it, `close` stops the lines. */
export interface RedisOutageWatch {
  watch(emitter: ErrorEmitter): void;
  /** True between the line that says the connection is lost and the one that says it is back. */
  readonly down: boolean;
  close(): void;
}

/** True for an error that means Redis could not be reached (not a command Redis answered with an error). */
export function isConnectionError(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code && CONNECTION_CODES.has(code)) return true;
  return /Connection is closed|Stream isn't writeable|connect ETIMEDOUT|Reached the max retries/i.test(
    error.message,
  );
}

/**
 * Starts watching: a connection error while the primary connection is not ready opens an outage, told once; the
 * primary's next `ready` closes it, told once with how long it lasted. Connection errors are logged at debug level
 * only (the outage is the news); other errors are logged as errors, as before.
 */
export function watchRedisOutages(options: RedisOutageOptions): RedisOutageWatch {
  const now = options.now ?? Date.now;
  let since: number | undefined;
  let closed = false;
  options.primary.on('ready', () => {
    if (since === undefined || closed) return;
    const seconds = Math.max(1, Math.round((now() - since) / 1000));
    since = undefined;
    options.notify(`connected to Redis at ${options.url} again after ${seconds}s; going on.`);
    log.info({ url: options.url, seconds }, 'redis is back');
  });
  const onError = (error: Error) => {
    const outage = options.primary.status !== 'ready' || isConnectionError(error);
    if (!outage) {
      log.error({ err: error }, 'redis client error');
      return;
    }
    log.debug({ err: error }, 'redis connection error');
    // An error from a connection that noticed first, while the primary still answers, is not an outage yet.
    if (since !== undefined || closed || options.primary.status === 'ready') return;
    since = now();
    const reason = error.message.split('\n')[0];
    options.notify(
      `lost the connection to Redis at ${options.url} (${reason}); retrying until it is back — a session in flight may be redone from its last commit.`,
    );
    log.warn({ url: options.url, reason }, 'redis is unreachable');
  };
  return {
    watch: (emitter) => void emitter.on('error', onError),
    get down() {
      return since !== undefined;
    },
    close: () => {
      closed = true;
    },
  };
}
