import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RunConfig, type RunConfigInput } from '../../../orchestrator/config.js';
import type { NewRun } from '../../../orchestrator/run/index.js';

/** The Redis the integration tests use. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A unique key prefix per test file, so parallel tests never share keys. */
export function uniquePrefix(): string {
  return `nstest-${randomBytes(4).toString('hex')}:`;
}

/** A new client. */
export function connect(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

/** A NewRun for tests. */
export function newRun(config: RunConfigInput = {}, id?: string): NewRun {
  return {
    id,
    spec: { path: '/specs/todo.md', name: 'todo.md' },
    workspace: { kind: 'local', path: '/tmp/ws' },
    config: RunConfig.parse(config),
  };
}
