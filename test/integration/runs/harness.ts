import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { createProvider } from '../../../agent/providers/index.js';
import { keyPrefixFor, parseRedisUrl } from '../../../core/redis-url.js';
import { RunConfig, type RunConfigInput } from '../../../orchestrator/config.js';
import type { Orchestrator } from '../../../orchestrator/orchestrator.js';
import { openQueues } from '../../../orchestrator/queues.js';
import { openBullConnection, openRedis, scanKeys } from '../../../orchestrator/redis-client.js';
import { RedisWait, redisWaitFor } from '../../../orchestrator/replica-ack.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import { withScriptedFeatureCount } from '../../../testkit/policies/todo-features.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, Policy } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import type { NightshiftMetrics } from '../../../workers/metrics.js';
import { type RunningWorker, startWorker } from '../../../workers/worker.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Everything one run test needs: its own key prefix, a scripted server, temp dirs; torn down by `close`. */
export interface RunHarness {
  orchestrator: Orchestrator;
  server: ModelServer;
  root: string;
  dataDir: string;
  prefix: string;
  /** Run config for tests: the scripted model for every role, a price so costs are known. */
  config(overrides?: RunConfigInput): RunConfig;
  /** Starts an in-process worker (closed by `close`). */
  startWorker(options?: {
    concurrency?: number;
    browser?: BrowserPool;
    metrics?: NightshiftMetrics;
  }): Promise<RunningWorker>;
  close(): Promise<void>;
}

/** The model id tests use with the scripted server (Anthropic wire format). */
export const SCRIPTED_MODEL = 'anthropic:scripted';
/** A price for the scripted model so budgets have something to count (USD per million tokens). */
export const SCRIPTED_PRICE = { inputPerMTok: 3, outputPerMTok: 15 };

/** Creates a harness: unique prefix on the shared Redis, a scripted model server with `policy`. */
export async function createRunHarness(
  policy: Policy,
  options: { redisUrl?: string } = {},
): Promise<RunHarness> {
  const redisUrl = options.redisUrl ?? REDIS_URL;
  const topology = parseRedisUrl(redisUrl);
  // A Cluster gets a hash-tagged prefix, as the CLI's config gives it (keyPrefixFor).
  const prefix = keyPrefixFor(`nstest:${randomBytes(4).toString('hex')}:`, topology);
  const redis = openRedis(redisUrl);
  redis.on('error', () => undefined); // a failover test's outage is expected; commands wait for the reconnect
  const bull = openBullConnection(redisUrl);
  const connection = bull.connection;
  const queues = openQueues(connection, prefix);
  const orchestrator: Orchestrator = {
    redis,
    // On Sentinel a session's result waits for the replica, as the CLI's config sets it (redisWaitFor).
    store: new RunStore(redis, { prefix, redisWait: redisWaitFor(topology, RedisWait.parse({})) }),
    queues,
    prefix,
    now: () => new Date(),
  };
  const server = await startModelServer({ policy });
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-run-')));
  const dataDir = path.join(root, 'data');
  const workers: RunningWorker[] = [];
  const browsers: BrowserPool[] = [];
  const env = {
    ANTHROPIC_API_KEY: 'sk-ant-scripted-000000',
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    OPENAI_API_KEY: 'sk-scripted-000000',
    OPENAI_BASE_URL: server.openaiBaseURL,
  };
  return {
    orchestrator,
    server,
    root,
    dataDir,
    prefix,
    config: (overrides = {}) =>
      RunConfig.parse({
        models: { initializer: SCRIPTED_MODEL, generator: SCRIPTED_MODEL, evaluator: SCRIPTED_MODEL },
        prices: { [SCRIPTED_MODEL]: SCRIPTED_PRICE },
        sandbox: { bubblewrap: 'off', network: false },
        ...overrides,
      }),
    startWorker: async (options = {}) => {
      const browser = options.browser ?? createBrowserPool();
      browsers.push(browser);
      const worker = await startWorker({
        orchestrator,
        connection,
        dataDir,
        concurrency: options.concurrency ?? 1,
        shutdownGraceMs: 5_000,
        browser,
        createProvider: (modelId) => createProvider(modelId, { env, maxRetries: 0 }),
        secrets: [env.ANTHROPIC_API_KEY, env.OPENAI_API_KEY],
        ...(options.metrics ? { metrics: options.metrics } : {}),
      });
      workers.push(worker);
      return worker;
    },
    close: async () => {
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all(browsers.map((browser) => browser.close()));
      await queues.sessions.obliterate({ force: true }).catch(() => undefined);
      await queues.control.obliterate({ force: true }).catch(() => undefined);
      await queues.close();
      await server.close();
      await deleteKeys(redis, prefix);
      await bull.close();
      redis.disconnect();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Deletes every key under a prefix (on every master of a Cluster). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  for (const key of await scanKeys(redis, `${prefix}*`)) await redis.del(key);
}

/** Waits until `check` returns a value (polling), or throws after `timeoutMs` with `what`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 240_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Writes the todo example's spec into `dir` asking the scripted initializer for its first `count` features
 * (testkit `<!-- testkit: first N features -->`): a whole run of a few features, for tests whose point is not
 * the number of features. Returns the spec's path.
 */
export function shortTodoSpec(dir: string, count: number): string {
  const spec = fs.readFileSync(
    path.resolve(import.meta.dirname, '../../../examples/todo/app_spec.md'),
    'utf8',
  );
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `todo-${count}.md`);
  fs.writeFileSync(file, withScriptedFeatureCount(spec, count));
  return file;
}
