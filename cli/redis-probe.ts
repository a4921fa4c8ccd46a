/** Redis URLs and a one-shot probe: the default address, ioredis options from a URL, a masked URL, PING. */
import type { RedisOptions as BullRedisOptions } from 'bullmq';
import { Redis } from 'ioredis';

/** Where the CLI looks when no Redis URL is configured. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

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
