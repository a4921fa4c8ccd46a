import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCliContext } from '../../../cli/context.js';
import { type EmbeddedRedis, findEmbeddedRedis } from '../../../cli/embedded-redis.js';
import { connectRedis, RedisUnavailableError, RedisUnreachableError } from '../../../cli/redis.js';
import { pingRedis } from '../../../cli/redis-probe.js';
import { RunConfig } from '../../../orchestrator/config.js';
import { tempDir } from './helpers.js';

// The embedded path: the "default" Redis URL points at a dead port, so connectRedis must start a private
// redis-server for the temp data dir (the real /usr/bin/redis-server), share it, and leave it running.
let deadUrl: string;
const homes: string[] = [];
const servers: EmbeddedRedis[] = [];

function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function home(): string {
  const dir = tempDir('redis');
  homes.push(dir);
  return dir;
}

function sink() {
  const sink = { text: '', write: (chunk: string) => (sink.text += chunk) };
  return sink;
}

beforeAll(async () => {
  deadUrl = `redis://127.0.0.1:${await deadPort()}`;
});

afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => undefined);
  for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true });
});

describe('connectRedis', () => {
  it('uses the local default Redis when it answers', async () => {
    const connection = await connectRedis({}, { dataDir: home() });
    try {
      expect(connection.source).toBe('default');
      expect(connection.embedded).toBeUndefined();
      expect(await connection.redis.ping()).toBe('PONG');
    } finally {
      await connection.close();
    }
  });

  it('starts a private redis-server for the data dir, shares it, keeps it running and persists to its AOF', async () => {
    const dataDir = home();
    const notices = sink();
    const first = await connectRedis({}, { dataDir, defaultUrl: deadUrl, embeddedPort: 0, notices });
    const embedded = first.embedded as EmbeddedRedis;
    servers.push(embedded);
    expect(first.source).toBe('embedded');
    expect(embedded.started).toBe(true);
    expect(first.url).toBe(`redis://127.0.0.1:${embedded.port}`);
    expect(notices.text).toContain(`redis-cli -p ${embedded.port} shutdown`);
    expect(fs.readFileSync(`${dataDir}/redis/redis.pid`, 'utf8').trim()).toBe(String(embedded.pid));
    await first.redis.set('nightshift-test:key', 'kept');

    const second = await connectRedis({}, { dataDir, defaultUrl: deadUrl, embeddedPort: 0, notices: sink() });
    expect(second.embedded).toMatchObject({ pid: embedded.pid, port: embedded.port, started: false });
    expect(await second.redis.get('nightshift-test:key')).toBe('kept');
    await first.close();
    await second.close();
    // Closing the CLI's connections leaves the server up for workers and the dashboard.
    expect((await pingRedis(first.url)).ok).toBe(true);

    await embedded.stop();
    expect((await pingRedis(first.url)).ok).toBe(false);
    expect(() => process.kill(embedded.pid, 0)).toThrow();
    expect(await findEmbeddedRedis(dataDir)).toBeUndefined();

    // Started again, it reads its append-only file back.
    const again = await connectRedis({}, { dataDir, defaultUrl: deadUrl, embeddedPort: 0, notices: sink() });
    servers.push(again.embedded as EmbeddedRedis);
    expect(again.embedded?.started).toBe(true);
    expect(await again.redis.get('nightshift-test:key')).toBe('kept');
    await again.close();
    await again.embedded?.stop();
  });

  it('starts one server when two processes of one data dir start at once', async () => {
    const dataDir = home();
    const options = { dataDir, defaultUrl: deadUrl, embeddedPort: 0 };
    const [a, b] = await Promise.all([
      connectRedis({}, { ...options, notices: sink() }),
      connectRedis({}, { ...options, notices: sink() }),
    ]);
    servers.push(a.embedded as EmbeddedRedis);
    expect(a.embedded?.pid).toBe(b.embedded?.pid);
    expect(a.embedded?.port).toBe(b.embedded?.port);
    expect([a.embedded?.started, b.embedded?.started].filter(Boolean)).toHaveLength(1);
    await a.close();
    await b.close();
    await a.embedded?.stop();
  });

  it('gives an orchestrator context on the private server', async () => {
    const dataDir = home();
    const context = await openCliContext({
      cwd: dataDir,
      env: { NIGHTSHIFT_HOME: dataDir, NIGHTSHIFT_KEY_PREFIX: 'ctx:' },
      redis: { defaultUrl: deadUrl, embeddedPort: 0, notices: sink() },
    });
    servers.push(context.connection.embedded as EmbeddedRedis);
    try {
      expect(context.dataDir).toBe(dataDir);
      expect(context.redisUrl).toBe(`redis://127.0.0.1:${context.connection.embedded?.port}`);
      const run = await context.orchestrator.store.createRun({
        spec: { path: '/s.md', name: 's.md' },
        workspace: { kind: 'local', path: '/tmp/ws' },
        config: RunConfig.parse({}),
      });
      await context.orchestrator.queues.sessions.add('session', { runId: run.id }, { jobId: `${run.id}-1` });
      expect(await context.orchestrator.redis.exists(`ctx:run:{${run.id}}`)).toBe(1);
      expect(await context.orchestrator.queues.sessions.getJobCounts('waiting')).toEqual({ waiting: 1 });
    } finally {
      await context.close();
      await context.connection.embedded?.stop();
    }
  });

  it('names an unreachable configured URL (password masked) with exit code 2', async () => {
    const url = deadUrl.replace('redis://', 'redis://:hunter22@');
    const error = await connectRedis({ redisUrl: url }, { dataDir: home() }).catch((caught) => caught);
    expect(error).toBeInstanceOf(RedisUnreachableError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(deadUrl.replace('redis://', 'redis://:***@'));
    expect(error.describe()).not.toContain('hunter22');
    expect(error.hint).toContain('REDIS_URL');
  });

  it('says how to get Redis when none answers and redis-server is missing', async () => {
    const error = await connectRedis(
      {},
      { dataDir: home(), defaultUrl: deadUrl, redisServerPath: '/nonexistent/redis-server' },
    ).catch((caught) => caught);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect(error.exitCode).toBe(2);
    expect(error.describe()).toContain('apt-get install redis-server');
    expect(error.describe()).toContain('REDIS_URL');
  });
});
