/** The default Redis address, a masked URL for messages and a one-shot probe (PING + version) on any topology. */
import { maskRedisUrl } from '../core/redis-url.js';
import { openRedis } from '../orchestrator/redis-client.js';

/** Where the CLI looks when no Redis URL is configured. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** The URL with its passwords replaced by `***`, for messages (core/redis-url.ts). */
export const maskUrl = maskRedisUrl;

/** Result of pingRedis. */
export type RedisProbe = { ok: true; version: string } | { ok: false; error: string };

/** Whether a Redis answers at `url` (PING + server version), without retrying; a bad URL is a failed probe. */
export async function pingRedis(url: string, timeoutMs = 2_000): Promise<RedisProbe> {
  let client: ReturnType<typeof openRedis>;
  try {
    client = openRedis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
      // A Cluster whose state is `fail` answers PING; its ready check would refuse it and never settle `connect()`.
      enableReadyCheck: false,
    });
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
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
