/**
 * Redis URLs, one parser for every topology: `redis://` and `rediss://` (one server), `redis+sentinel://` (a master
 * found through Sentinel, with failover) and `redis+cluster://` (a Redis Cluster). `rediss+sentinel://` and
 * `rediss+cluster://` speak TLS. Pure: no connection is made here (orchestrator/redis-client.ts does that).
 */
import { z } from 'zod';
import { InputError } from './errors.js';

/** Schemes REDIS_URL / redisUrl accept. */
export const REDIS_URL_SCHEMES = [
  'redis',
  'rediss',
  'redis+sentinel',
  'rediss+sentinel',
  'redis+cluster',
  'rediss+cluster',
] as const;

/** One `host:port` of a server, sentinel or cluster seed node. */
export const RedisEndpoint = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65_535),
});
export type RedisEndpoint = z.infer<typeof RedisEndpoint>;

/** What every topology shares: credentials (of the data nodes) and TLS. */
const RedisCommon = {
  username: z.string().optional(),
  password: z.string().optional(),
  /** TLS to every node (`rediss…` schemes). */
  tls: z.boolean(),
  /** A PEM file of the CA that signed the servers' certificates (`?ca=/path/ca.pem`); default: the system's CAs. */
  tlsCa: z.string().optional(),
  /** The name the servers' certificates carry when it is not the host in the URL (`?servername=`). */
  tlsServername: z.string().optional(),
};

/** A parsed Redis URL: where the data lives and how to reach it. */
export const RedisTopology = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('standalone'),
    endpoint: RedisEndpoint,
    db: z.number().int().min(0),
    ...RedisCommon,
  }),
  z.object({
    kind: z.literal('sentinel'),
    sentinels: z.array(RedisEndpoint).min(1),
    /** The master's name as the sentinels know it (`sentinel monitor <name> …`). */
    masterName: z.string().regex(/^[A-Za-z0-9_.-]+$/),
    db: z.number().int().min(0),
    /** The sentinels' own password, when they have one (`?sentinelPassword=`). */
    sentinelPassword: z.string().optional(),
    ...RedisCommon,
  }),
  z.object({ kind: z.literal('cluster'), nodes: z.array(RedisEndpoint).min(1), ...RedisCommon }),
]);
export type RedisTopology = z.infer<typeof RedisTopology>;

const EXAMPLES =
  'Examples: redis://:password@127.0.0.1:6379/0, rediss://redis.example:6380?ca=/etc/ssl/redis-ca.pem, ' +
  'redis+sentinel://:password@s1:26379,s2:26379,s3:26379/mymaster, redis+cluster://:password@n1:7000,n2:7001.';

/** A Redis URL nightshift cannot use; the message names the URL (password hidden) and what is wrong. */
export class RedisUrlError extends InputError {
  constructor(url: string, problem: string) {
    super('REDIS_URL_INVALID', `Redis URL ${maskRedisUrl(url)} is not usable: ${problem}.`, {
      hint: `Fix REDIS_URL / NIGHTSHIFT_REDIS_URL or redisUrl in nightshift.config.json. ${EXAMPLES}`,
    });
  }
}

/** The URL with its passwords (user info and `sentinelPassword`) replaced by `***`, for messages and logs. */
export function maskRedisUrl(url: string): string {
  return url
    .replace(/^([a-z+]+:\/\/[^:@/]*:)[^@/]*@/i, '$1***@')
    .replace(/([?&]sentinelPassword=)[^&]*/i, '$1***');
}

const QUERY_KEYS = new Set(['ca', 'servername', 'sentinelPassword', 'db']);

/** Parses a Redis URL of any supported topology; throws RedisUrlError naming the URL and the problem. */
export function parseRedisUrl(url: string): RedisTopology {
  const match = /^([a-z+]+):\/\/(?:([^@/]*)@)?([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?$/i.exec(url.trim());
  if (!match)
    throw new RedisUrlError(url, 'it is not a URL of the form scheme://[user:password@]host:port[/…]');
  const [, rawScheme = '', userInfo, hostList = '', rawPath = '', query = ''] = match;
  const scheme = rawScheme.toLowerCase();
  if (!(REDIS_URL_SCHEMES as readonly string[]).includes(scheme)) {
    throw new RedisUrlError(url, `the scheme "${scheme}://" is not one of ${REDIS_URL_SCHEMES.join(', ')}`);
  }
  const kind = scheme.endsWith('+sentinel')
    ? 'sentinel'
    : scheme.endsWith('+cluster')
      ? 'cluster'
      : 'standalone';
  const common = {
    ...credentials(url, userInfo),
    tls: scheme.startsWith('rediss'),
    ...tlsOptions(url, query),
  };
  const defaultPort = kind === 'sentinel' ? 26_379 : 6379;
  const endpoints = parseHosts(url, hostList, defaultPort, kind !== 'standalone');
  const params = new URLSearchParams(query);
  const path = decodeURIComponent(rawPath.replace(/^\//, ''));
  const topology =
    kind === 'standalone'
      ? { kind, endpoint: endpoints[0], db: parseDb(url, path || params.get('db') || '0'), ...common }
      : kind === 'sentinel'
        ? {
            kind,
            sentinels: endpoints,
            masterName: sentinelMaster(url, path),
            db: parseDb(url, params.get('db') ?? '0'),
            ...(params.has('sentinelPassword')
              ? { sentinelPassword: params.get('sentinelPassword') ?? '' }
              : {}),
            ...common,
          }
        : { kind, nodes: endpoints, ...clusterPath(url, path, params), ...common };
  const parsed = RedisTopology.safeParse(topology);
  if (!parsed.success) throw new RedisUrlError(url, parsed.error.issues[0]?.message ?? 'it is malformed');
  return parsed.data;
}

function credentials(url: string, userInfo: string | undefined): { username?: string; password?: string } {
  if (!userInfo) return {};
  const colon = userInfo.indexOf(':');
  const [user, password] =
    colon < 0 ? [userInfo, undefined] : [userInfo.slice(0, colon), userInfo.slice(colon + 1)];
  try {
    return {
      ...(user ? { username: decodeURIComponent(user) } : {}),
      ...(password ? { password: decodeURIComponent(password) } : {}),
    };
  } catch {
    throw new RedisUrlError(url, 'the user or password has a bad %-escape (write @ as %40, : as %3A)');
  }
}

function tlsOptions(url: string, query: string): { tlsCa?: string; tlsServername?: string } {
  const params = new URLSearchParams(query);
  const unknown = [...params.keys()].filter((key) => !QUERY_KEYS.has(key));
  if (unknown.length) {
    throw new RedisUrlError(
      url,
      `unknown option ${unknown.join(', ')} (known: ${[...QUERY_KEYS].join(', ')})`,
    );
  }
  return {
    ...(params.get('ca') ? { tlsCa: params.get('ca') ?? '' } : {}),
    ...(params.get('servername') ? { tlsServername: params.get('servername') ?? '' } : {}),
  };
}

function parseHosts(url: string, list: string, defaultPort: number, many: boolean): RedisEndpoint[] {
  const parts = list.split(',').map((part) => part.trim());
  if (parts.some((part) => part === ''))
    throw new RedisUrlError(url, 'a host is missing (an empty name or ",,")');
  if (!many && parts.length > 1) {
    throw new RedisUrlError(url, 'only redis+sentinel:// and redis+cluster:// URLs list several hosts');
  }
  return parts.map((part) => {
    const hostPort = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d*))?$/i.exec(part);
    if (!hostPort) throw new RedisUrlError(url, `"${part}" is not host or host:port`);
    const port = hostPort[2] ? Number(hostPort[2]) : defaultPort;
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new RedisUrlError(url, `port "${hostPort[2]}" of "${part}" is not 1…65535`);
    }
    return { host: (hostPort[1] ?? '').replace(/^\[|\]$/g, ''), port };
  });
}

function parseDb(url: string, text: string): number {
  if (!/^\d{1,5}$/.test(text))
    throw new RedisUrlError(url, `the database "${text}" is not a number (0, 1, …)`);
  return Number(text);
}

function sentinelMaster(url: string, path: string): string {
  if (!path)
    throw new RedisUrlError(
      url,
      'a redis+sentinel:// URL ends in /masterName (the name the sentinels monitor)',
    );
  if (!/^[A-Za-z0-9_.-]+$/.test(path)) {
    throw new RedisUrlError(
      url,
      `the master name "${path}" may use letters, digits, _ . - only (set the db with ?db=N)`,
    );
  }
  return path;
}

function clusterPath(url: string, path: string, params: URLSearchParams): Record<string, never> {
  if (path || params.has('db'))
    throw new RedisUrlError(url, 'a Redis Cluster has only database 0: drop the path or ?db=');
  return {};
}

/** What is wrong with a Redis URL (the RedisUrlError's message and examples), or undefined when it parses. */
export function redisUrlProblem(url: string): string | undefined {
  try {
    parseRedisUrl(url);
    return undefined;
  } catch (error) {
    if (error instanceof RedisUrlError) return `${error.message} ${EXAMPLES}`;
    throw error;
  }
}

/**
 * The key prefix to use on a topology: on a Cluster every key must share one slot (BullMQ's Lua scripts and ours
 * touch several keys at once), so a prefix without a `{hash tag}` gets one: `nightshift:` → `{nightshift}:`.
 */
export function keyPrefixFor(prefix: string, topology: Pick<RedisTopology, 'kind'> | undefined): string {
  if (topology?.kind !== 'cluster' || /^\{[^}]+\}/.test(prefix)) return prefix;
  return `{${prefix.replace(/:$/, '')}}:`;
}
