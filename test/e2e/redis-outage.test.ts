import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../orchestrator/run/index.js';
import { shortTodoSpec } from '../integration/runs/harness.js';
import {
  cliEnv,
  createE2eContext,
  type E2eContext,
  sleep,
  startCli,
  startScriptedServer,
  untilSessionInFlight,
  writeConfig,
} from './helpers.js';

// A Redis outage in the middle of a foreground run, on a private redis-server this test stops and starts again
// (append-only, so nothing is lost): the terminal gets one plain line for the outage and one when Redis is back,
// never the connection errors' stack traces, and the run finishes.
let context: E2eContext;
let redisDir: string;
let port: number;
let server: ChildProcess | undefined;

beforeAll(async () => {
  context = createE2eContext('redis-outage');
  redisDir = path.join(context.root, 'redis');
  fs.mkdirSync(redisDir);
  port = await freePort();
  await startRedis();
});
afterAll(async () => {
  await stopRedis();
  await context.close();
});

describe('a Redis outage during a run', () => {
  it('is one line when it starts and one when Redis is back; the run goes on to done', async () => {
    const scripted = await startScriptedServer(context);
    const env = cliEnv(context, {
      home: path.join(context.root, 'home'),
      configFile: writeConfig(context),
      anthropicBaseURL: scripted.anthropicBaseURL,
      extra: { REDIS_URL: `redis://127.0.0.1:${port}` },
    });
    // The CLI's own log goes to its file, as when a person runs it: the terminal shows what it says to them.
    delete env.NIGHTSHIFT_LOG_LEVEL;
    const workspace = path.join(context.root, 'todo');
    const redis = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    const store = new RunStore(redis, { prefix: context.prefix });
    try {
      const run = startCli(
        context,
        ['run', shortTodoSpec(context.root, 2), '--workspace', workspace],
        env,
        'run',
      );
      await untilSessionInFlight(store, workspace, 'generator');
      await stopRedis();
      await sleep(6_000);
      await startRedis();
      const code = await run.exited;
      const output = fs.readFileSync(run.logFile, 'utf8');
      expect(code, output.slice(-4_000)).toBe(0);
      const lines = output.split('\n');
      const lost = lines.filter((line) => line.includes('lost the connection to Redis'));
      const back = lines.filter((line) =>
        line.includes(`connected to Redis at redis://127.0.0.1:${port} again`),
      );
      expect(lost, output.slice(-4_000)).toHaveLength(1);
      expect(back, output.slice(-6_000)).toHaveLength(1);
      expect(lost[0]).toMatch(
        new RegExp(`Redis at redis://127\\.0\\.0\\.1:${port} .*ECONNREFUSED.*; retrying until it is back`),
      );
      expect(back[0]).toMatch(/again after \d+s; going on\.$/);
      expect(output).not.toMatch(/^\s+at /m);
      expect(output).not.toContain('Unhandled error event');
      expect(output).toMatch(/run done — 2\/2 features passing/);
      const [finished] = await store.listRuns();
      expect(finished?.status).toBe('done');
    } finally {
      await store.close();
      redis.disconnect();
    }
  }, 600_000);
});

/** Starts the private redis-server (append-only, fsync always) on the test's port and waits until it answers. */
async function startRedis(): Promise<void> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', redisDir, '--save', ''];
  server = spawn('redis-server', [...args, '--appendonly', 'yes', '--appendfsync', 'always'], {
    stdio: 'ignore',
  });
  for (let tries = 0; tries < 100; tries++) {
    if (await answers()) return;
    await sleep(100);
  }
  throw new Error(`redis-server did not answer on port ${port}`);
}

/** Stops it (SIGTERM: it writes what it has and exits). */
async function stopRedis(): Promise<void> {
  const running = server;
  server = undefined;
  if (!running || running.exitCode !== null) return;
  const exited = new Promise((resolve) => running.once('exit', resolve));
  running.kill('SIGTERM');
  await exited;
}

function answers(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
