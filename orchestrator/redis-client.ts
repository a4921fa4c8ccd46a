/**
 * The one place Redis connections are made: a client for our own commands and BullMQ's connection, for every
 * topology core/redis-url.ts parses (one server, Sentinel, Cluster).
 */
import fs from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import type { RedisOptions as BullRedisOptions, ConnectionOptions } from 'bullmq';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { InputError } from '../core/errors.js';
import { parseRedisUrl, type RedisTopology } from '../core/redis-url.js';

/** Connection behaviour a caller may set (a probe fails fast; the harness's clients wait out an outage). */
export type RedisTuning = Pick<
  RedisOptions,
  | 'lazyConnect'
  | 'connectTimeout'
  | 'maxRetriesPerRequest'
  | 'enableOfflineQueue'
  | 'retryStrategy'
  | 'enableReadyCheck'
>;

/** Harness and BullMQ default: commands wait for a reconnect (BullMQ requires `maxRetriesPerRequest: null`). */
const WAIT_FOR_RECONNECT: RedisTuning = { maxRetriesPerRequest: null };

function tlsOf(topology: RedisTopology): TlsOptions | undefined {
  if (!topology.tls) return undefined;
  let ca: string | undefined;
  if (topology.tlsCa) {
    try {
      ca = fs.readFileSync(topology.tlsCa, 'utf8');
    } catch (error) {
      throw new InputError('REDIS_TLS_CA_UNREADABLE', `The Redis CA file ${topology.tlsCa} cannot be read.`, {
        hint: 'Fix ?ca= in the Redis URL: a PEM file readable by nightshift.',
        cause: error,
      });
    }
  }
  return { ...(ca ? { ca } : {}), ...(topology.tlsServername ? { servername: topology.tlsServername } : {}) };
}

/** ioredis options for a one-server or Sentinel topology (a Cluster has no single options object). */
export function redisOptionsFor(
  topology: Exclude<RedisTopology, { kind: 'cluster' }>,
  tuning: RedisTuning = WAIT_FOR_RECONNECT,
): RedisOptions {
  const tls = tlsOf(topology);
  const auth = {
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
  };
  if (topology.kind === 'standalone') {
    return { ...topology.endpoint, ...auth, db: topology.db, ...(tls ? { tls } : {}), ...tuning };
  }
  return {
    sentinels: topology.sentinels,
    name: topology.masterName,
    ...auth,
    db: topology.db,
    ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
    ...(tls ? { tls, sentinelTLS: tls, enableTLSForSentinelMode: true } : {}),
    ...tuning,
  };
}

/** ioredis Cluster options: every node gets the credentials and TLS. */
export function clusterOptionsFor(
  topology: Extract<RedisTopology, { kind: 'cluster' }>,
  tuning: RedisTuning = WAIT_FOR_RECONNECT,
): ClusterOptions {
  const tls = tlsOf(topology);
  const { retryStrategy, lazyConnect, enableOfflineQueue, enableReadyCheck, ...perNode } = tuning;
  return {
    redisOptions: {
      ...(topology.username ? { username: topology.username } : {}),
      ...(topology.password ? { password: topology.password } : {}),
      ...(tls ? { tls } : {}),
      ...perNode,
    },
    ...(retryStrategy ? { clusterRetryStrategy: (times: number) => retryStrategy(times) ?? null } : {}),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    // A Cluster's ready check refuses a cluster whose state is `fail` (and never settles `connect()`).
    ...(enableReadyCheck === undefined ? {} : { enableReadyCheck }),
  };
}

/** A parsed topology from a URL or an already parsed one. */
function topologyOf(target: string | RedisTopology): RedisTopology {
  return typeof target === 'string' ? parseRedisUrl(target) : target;
}

/**
 * A client on any topology. A Cluster is returned as `Redis`: both speak the same commands (ioredis `Commander`),
 * and every key nightshift writes shares one hash-tagged prefix, so each command and script lands on one slot.
 */
export function openRedis(target: string | RedisTopology, tuning: RedisTuning = WAIT_FOR_RECONNECT): Redis {
  const topology = topologyOf(target);
  if (topology.kind === 'cluster') {
    return new Cluster(topology.nodes, clusterOptionsFor(topology, tuning)) as unknown as Redis;
  }
  return new Redis(redisOptionsFor(topology, tuning));
}

/** Whether a client from openRedis is a Cluster. */
export function isCluster(redis: Redis): boolean {
  return (redis as unknown as { isCluster?: boolean }).isCluster === true;
}

/** BullMQ's connection and how to close what was opened for it. */
export interface BullConnection {
  /** For `new Queue/Worker(…, { connection })`. */
  connection: ConnectionOptions;
  close(): Promise<void>;
}

/**
 * BullMQ's connection: options for one server or Sentinel (BullMQ opens its own clients); on a Cluster a shared
 * Cluster client (BullMQ duplicates it for blocking reads), closed by `close`.
 */
export function openBullConnection(target: string | RedisTopology): BullConnection {
  const topology = topologyOf(target);
  if (topology.kind !== 'cluster') {
    // bullmq types ioredis's options from its own copy of ioredis: the same object, another declaration.
    return { connection: redisOptionsFor(topology) as BullRedisOptions, close: async () => undefined };
  }
  const cluster = new Cluster(topology.nodes, clusterOptionsFor(topology));
  cluster.on('error', () => undefined); // BullMQ's own listeners report; an unhandled one would crash
  return {
    connection: cluster,
    close: async () => {
      await cluster.quit().catch(() => cluster.disconnect());
    },
  };
}

/** Every key matching `pattern` (SCAN; on a Cluster each master is scanned, as SCAN sees one node). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const nodes = isCluster(redis) ? (redis as unknown as Cluster).nodes('master') : [redis];
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
  }
  return found;
}
