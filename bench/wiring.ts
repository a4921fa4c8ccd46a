/** The orchestrator, queues and temp dirs one benchmark section runs on: a unique Redis prefix, cleaned up. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { createProvider } from '../agent/providers/index.js';
import { RunConfig, type RunConfigInput } from '../orchestrator/config.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { openQueues } from '../orchestrator/queues.js';
import { ACTIVE_STATUSES, type RunRecord, RunStore } from '../orchestrator/run/index.js';
import type { BrowserPool } from '../workers/browser-pool.js';
import { type RunningWorker, startWorker } from '../workers/worker.js';

/** Redis the benchmarks use (REDIS_URL, default the local one). */
export const BENCH_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Model id of the scripted server in every role (Anthropic wire format). */
export const SCRIPTED_MODEL = 'anthropic:scripted';

/** Environment the scripted provider gets (a fake key: the scripted server checks none). */
export function scriptedEnv(anthropicBaseURL: string): Record<string, string> {
  return { ANTHROPIC_API_KEY: 'sk-ant-bench-000000', ANTHROPIC_BASE_URL: anthropicBaseURL };
}

/** Run config for benchmark runs: the scripted model everywhere, a price so costs are counted, no bubblewrap. */
export function benchRunConfig(overrides: RunConfigInput = {}): RunConfig {
  return RunConfig.parse({
    models: { initializer: SCRIPTED_MODEL, generator: SCRIPTED_MODEL, evaluator: SCRIPTED_MODEL },
    prices: { [SCRIPTED_MODEL]: { inputPerMTok: 3, outputPerMTok: 15 } },
    sandbox: { bubblewrap: 'off', network: false },
    ...overrides,
  });
}

/** One benchmark's own orchestrator on a unique key prefix, with temp dirs. */
export interface BenchEnv {
  orchestrator: Orchestrator;
  prefix: string;
  root: string;
  dataDir: string;
  /** Starts an in-process worker on the scripted server (closed by `close`). */
  startWorker(options: {
    anthropicBaseURL: string;
    concurrency?: number;
    browser?: BrowserPool;
  }): Promise<RunningWorker>;
  /** Closes workers and queues, deletes every key of the prefix and the temp dirs. */
  close(): Promise<void>;
}

/** Opens a benchmark environment under the prefix `nsbench:<label>:<random>:`. */
export function openBenchEnv(label: string): BenchEnv {
  const prefix = `nsbench:${label}:${randomBytes(4).toString('hex')}:`;
  const redis = new Redis(BENCH_REDIS_URL, { maxRetriesPerRequest: null });
  const connection = { url: BENCH_REDIS_URL, maxRetriesPerRequest: null } as const;
  const queues = openQueues(connection, prefix);
  const orchestrator: Orchestrator = {
    redis,
    store: new RunStore(redis, { prefix }),
    queues,
    prefix,
    now: () => new Date(),
  };
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `nsbench-${label}-`)));
  const dataDir = path.join(root, 'data');
  const workers: RunningWorker[] = [];
  return {
    orchestrator,
    prefix,
    root,
    dataDir,
    async startWorker(options) {
      const env = scriptedEnv(options.anthropicBaseURL);
      const worker = await startWorker({
        orchestrator,
        connection,
        dataDir,
        concurrency: options.concurrency ?? 1,
        shutdownGraceMs: 5_000,
        ...(options.browser ? { browser: options.browser } : {}),
        createProvider: (modelId) => createProvider(modelId, { env, maxRetries: 0 }),
        secrets: [env.ANTHROPIC_API_KEY as string],
      });
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.close()));
      await queues.sessions.obliterate({ force: true }).catch(() => undefined);
      await queues.control.obliterate({ force: true }).catch(() => undefined);
      await queues.close();
      await orchestrator.store.close();
      await deleteKeys(redis, prefix);
      redis.disconnect();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Deletes every key under a prefix. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

/** Polls until every run has left the active statuses (done, failed, paused, cancelled); throws after `timeoutMs`. */
export async function waitForRunsToEnd(
  orchestrator: Orchestrator,
  runIds: readonly string[],
  timeoutMs: number,
): Promise<RunRecord[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await Promise.all(runIds.map((id) => orchestrator.store.getRun(id)));
    if (runs.every((run) => !ACTIVE_STATUSES.includes(run.status))) return runs;
    if (Date.now() > deadline) {
      const open = runs.filter((run) => ACTIVE_STATUSES.includes(run.status)).map((run) => run.id);
      throw new Error(`runs still active after ${Math.round(timeoutMs / 1000)} s: ${open.join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
