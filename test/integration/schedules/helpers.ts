import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ConnectionOptions, type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { advanceRun } from '../../../orchestrator/advance.js';
import type { Orchestrator, StatusListener } from '../../../orchestrator/orchestrator.js';
import { bullPrefix, CONTROL_QUEUE, ControlJobData, openQueues } from '../../../orchestrator/queues.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import { handleScheduledStart } from '../../../orchestrator/schedules.js';
import { connect, REDIS_URL } from '../orchestrator/redis-helpers.js';

/** BullMQ connection options for the test Redis (workers need `maxRetriesPerRequest: null`). */
export function bullConnection(): ConnectionOptions {
  const url = new URL(REDIS_URL);
  return { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null };
}

/** A real Orchestrator under `prefix` (own Redis client, store and queues). */
export interface TestOrchestrator {
  orchestrator: Orchestrator;
  redis: Redis;
  close(): Promise<void>;
}

/** Opens an orchestrator on the test Redis. */
export function openOrchestrator(prefix: string, onStatusChange?: StatusListener): TestOrchestrator {
  const redis = connect();
  const store = new RunStore(redis, { prefix });
  const queues = openQueues(bullConnection(), prefix);
  const orchestrator: Orchestrator = { redis, store, queues, prefix, now: () => new Date(), onStatusChange };
  return {
    orchestrator,
    redis,
    close: async () => {
      await queues.close();
      await store.close();
      redis.disconnect();
    },
  };
}

/** A real BullMQ worker on the control queue routing `scheduled-start` and `advance` as the worker will. */
export function startControlWorker(orchestrator: Orchestrator): Worker {
  return new Worker(
    CONTROL_QUEUE,
    async (job: Job) => {
      const data = ControlJobData.parse(job.data);
      if (data.kind === 'scheduled-start') return handleScheduledStart(orchestrator, data);
      if (data.kind === 'advance') return advanceRun(orchestrator, data.runId);
      return undefined;
    },
    { connection: bullConnection(), prefix: bullPrefix(orchestrator.prefix) },
  );
}

/** Polls `check` until it returns a value (not undefined), or throws after `timeoutMs` with `what`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One request a receiver got. */
export interface Received {
  path: string;
  body: unknown;
}

/** How a receiver answers the nth request to a path (1-based): a status code, or 'hold' to answer only on release. */
export type Responder = (path: string, attempt: number) => number | 'hold' | 'never';

/** A webhook receiver on loopback. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Requests seen per path (including failed ones). */
  attempts(path: string): number;
  /** Answers every held request with `status`. */
  release(status?: number): void;
  /** Resolves once at least `count` requests arrived at `path`. */
  waitForRequests(path: string, count: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a node:http receiver on 127.0.0.1 with a port of its own. */
export async function startReceiver(respond: Responder = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const held: http.ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const attempt = (counts.get(path) ?? 0) + 1;
      counts.set(path, attempt);
      for (const wake of waiters.splice(0)) wake();
      const answer = respond(path, attempt);
      if (answer === 'never') return;
      if (answer === 'hold') {
        held.push(response);
        return;
      }
      if (answer >= 200 && answer < 300)
        received.push({ path, body: JSON.parse(Buffer.concat(chunks).toString()) });
      response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    attempts: (path) => counts.get(path) ?? 0,
    release: (status = 500) => {
      for (const response of held.splice(0)) response.writeHead(status).end();
    },
    waitForRequests: async (path, count) => {
      while ((counts.get(path) ?? 0) < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
