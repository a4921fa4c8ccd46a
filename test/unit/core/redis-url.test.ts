import { describe, expect, it } from 'vitest';
import { keyPrefixFor, maskRedisUrl, parseRedisUrl, RedisUrlError } from '../../../core/redis-url.js';
import { loadConfig } from '../../../orchestrator/config-load.js';
import { clusterOptionsFor, redisOptionsFor } from '../../../orchestrator/redis-client.js';

/** The RedisUrlError parseRedisUrl throws for `url`. */
function errorOf(url: string): RedisUrlError {
  try {
    parseRedisUrl(url);
  } catch (error) {
    if (error instanceof RedisUrlError) return error;
    throw error;
  }
  throw new Error(`${url} parsed`);
}

describe('Redis URLs', () => {
  it('parses one server, with credentials, db and TLS', () => {
    expect(parseRedisUrl('redis://user:p%40ss@db.example:6380/2')).toEqual({
      kind: 'standalone',
      endpoint: { host: 'db.example', port: 6380 },
      username: 'user',
      password: 'p@ss',
      db: 2,
      tls: false,
    });
    const tls = parseRedisUrl('rediss://h?ca=/etc/ca.pem&servername=redis.internal');
    expect(tls).toMatchObject({
      endpoint: { host: 'h', port: 6379 },
      db: 0,
      tls: true,
      tlsCa: '/etc/ca.pem',
    });
    const secure = parseRedisUrl('rediss://:pw@h');
    if (secure.kind !== 'standalone') throw new Error('not standalone');
    expect(redisOptionsFor(secure)).toMatchObject({ tls: {}, password: 'pw' });
    expect(parseRedisUrl('redis://[::1]:7000')).toMatchObject({ endpoint: { host: '::1', port: 7000 } });
  });

  it('parses Sentinel: several sentinels, the master name, the sentinels’ password', () => {
    const topology = parseRedisUrl(
      'redis+sentinel://:pw@s1:26379,s2,s3:26400/mymaster?db=1&sentinelPassword=sp',
    );
    expect(topology).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: 's3', port: 26400 },
      ],
      masterName: 'mymaster',
      db: 1,
      password: 'pw',
      sentinelPassword: 'sp',
      tls: false,
    });
    if (topology.kind !== 'sentinel') throw new Error('not sentinel');
    expect(redisOptionsFor(topology)).toMatchObject({ name: 'mymaster', sentinelPassword: 'sp' });
  });

  it('parses Cluster seed nodes and gives every node the credentials', () => {
    const topology = parseRedisUrl('rediss+cluster://admin:pw@n1:7000,n2:7001');
    expect(topology).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
      ],
      username: 'admin',
      password: 'pw',
      tls: true,
    });
    if (topology.kind !== 'cluster') throw new Error('not cluster');
    expect(clusterOptionsFor(topology).redisOptions).toMatchObject({
      username: 'admin',
      password: 'pw',
      tls: {},
    });
  });

  it.each([
    ['http://h:6379', /scheme "http:\/\/" is not one of/],
    ['redis://h:99999', /port "99999"/],
    ['redis://a:1,b:2', /only redis\+sentinel/],
    ['redis+sentinel://s1:26379', /ends in \/masterName/],
    ['redis+sentinel://s1,,s2/m', /a host is missing/],
    ['redis+cluster://n1:7000/3', /only database 0/],
    ['redis://h/abc', /database "abc"/],
    ['redis://h?timeout=5', /unknown option timeout/],
    ['127.0.0.1:6379', /not a URL/],
  ])('rejects %s with a message naming it and an example', (url, problem) => {
    const error = errorOf(url);
    expect(error.message).toMatch(problem);
    expect(error.message).toContain(maskRedisUrl(url));
    expect(error.hint).toMatch(/redis\+sentinel:\/\/.*\/mymaster/);
  });

  it('never shows a password', () => {
    const error = errorOf('redis+sentinel://:hunter2@s1:26379?sentinelPassword=swordfish');
    expect(error.describe()).not.toMatch(/hunter2|swordfish/);
    expect(maskRedisUrl('redis://u:secret@h:1/0')).toBe('redis://u:***@h:1/0');
    expect(maskRedisUrl('redis://h:1')).toBe('redis://h:1');
  });

  it('gives a Cluster one hash-tagged key prefix, leaving a tagged one and other topologies alone', () => {
    expect(keyPrefixFor('nightshift:', { kind: 'cluster' })).toBe('{nightshift}:');
    expect(keyPrefixFor('{ns}prod:', { kind: 'cluster' })).toBe('{ns}prod:');
    expect(keyPrefixFor('nightshift:', { kind: 'sentinel' })).toBe('nightshift:');
  });

  it('checks the configured URL when the config loads, naming where it came from', () => {
    const load = (env: NodeJS.ProcessEnv) =>
      loadConfig({ cwd: '/nonexistent', env: { NIGHTSHIFT_HOME: '/tmp/x', ...env } });
    expect(() => load({ REDIS_URL: 'redis+sentinel://:hunter2@s1' })).toThrow(
      /redisUrl \(from \$REDIS_URL\): Redis URL redis\+sentinel:\/\/:\*\*\*@s1 is not usable: .*masterName/,
    );
    expect(() => load({ REDIS_URL: 'redis+sentinel://:hunter2@s1' })).not.toThrow(/hunter2/);
    expect(load({ REDIS_URL: 'redis+cluster://n1:7000' }).config.keyPrefix).toBe('{nightshift}:');
    expect(load({ REDIS_URL: 'redis://h:6379' }).config.keyPrefix).toBe('nightshift:');
  });
});
