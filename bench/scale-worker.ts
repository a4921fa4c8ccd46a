/**
 * A worker process for the scale benchmark (started by bench/scale.ts with `node --import tsx`): runs a real
 * session worker on the benchmark's key prefix and reports its own CPU and memory over IPC when told to stop.
 * Config comes as JSON in NSBENCH_WORKER (see {@link WorkerProcessConfig}).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createProvider } from '../agent/providers/index.js';
import { stopSpawnHelper } from '../core/spawn-helper.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { openQueues } from '../orchestrator/queues.js';
import { openBullConnection, openRedis } from '../orchestrator/redis-client.js';
import { RunStore } from '../orchestrator/run/index.js';
import { startWorker } from '../workers/worker.js';
import { recordPhases } from './phase-spans.js';
import { WorkerProcessConfig, type WorkerProcessReport } from './scale-protocol.js';

const TICKS_PER_SECOND = 100;

/** utime+stime of reaped children of this process, in ms (fields 16 and 17 of /proc/self/stat). */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); cutime is field 16, cstime field 17.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

/** Summed RSS (bytes) of a process and its descendants, from /proc. */
function treeRssBytes(root: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of readdirSafe('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      rss.set(pid, Number(fields[21]) * 4096);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // the process ended while we looked
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop() as number;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

async function main(): Promise<void> {
  const config = WorkerProcessConfig.parse(JSON.parse(process.env.NSBENCH_WORKER ?? '{}'));
  const phases = config.phases ? recordPhases() : undefined;
  const redis = openRedis(config.redisUrl);
  const bull = openBullConnection(config.redisUrl);
  const queues = openQueues(bull.connection, config.prefix);
  const orchestrator: Orchestrator = {
    redis,
    store: new RunStore(redis, {
      prefix: config.prefix,
      ...(config.eventLogMaxLength ? { eventLogMaxLength: config.eventLogMaxLength } : {}),
    }),
    queues,
    prefix: config.prefix,
    now: () => new Date(),
  };
  const env = { ANTHROPIC_API_KEY: 'sk-ant-bench-000000', ANTHROPIC_BASE_URL: config.anthropicBaseURL };
  const rssBaselineBytes = process.memoryUsage.rss();
  let rssPeakBytes = rssBaselineBytes;
  let treeRssPeakBytes = treeRssBytes(process.pid);
  const cpuStart = process.cpuUsage();
  const childrenStart = childrenCpuMs();
  const startedAt = Date.now();
  const worker = await startWorker({
    orchestrator,
    connection: bull.connection,
    dataDir: config.dataDir,
    concurrency: config.concurrency,
    shutdownGraceMs: 5_000,
    createProvider: (modelId) => createProvider(modelId, { env, maxRetries: 0 }),
    secrets: [env.ANTHROPIC_API_KEY],
  });
  // Pauses of the loop freeze every session of the process at once (a module loaded mid-run, a synchronous read).
  const eventLoop = monitorEventLoopDelay({ resolution: 10 });
  eventLoop.enable();
  const rssTimer = setInterval(() => {
    rssPeakBytes = Math.max(rssPeakBytes, process.memoryUsage.rss());
  }, 100);
  const treeTimer = setInterval(() => {
    treeRssPeakBytes = Math.max(treeRssPeakBytes, treeRssBytes(process.pid));
  }, 1_000);
  process.send?.({ type: 'ready', workerId: worker.workerId, startedAt });
  // A benchmark killed (Ctrl-C, kill) closes the IPC channel without a stop: the worker goes with it rather than
  // taking jobs for a run nobody measures; closing the worker stops its sessions, their apps and its browser.
  process.on('disconnect', () => {
    void worker.close().finally(() => process.exit(1));
    setTimeout(() => process.exit(1), 10_000).unref();
  });
  process.on('message', (message: { type?: string }) => {
    if (message?.type !== 'stop') return;
    void (async () => {
      clearInterval(rssTimer);
      clearInterval(treeTimer);
      eventLoop.disable();
      await worker.close();
      // Git runs under the process helper: its CPU (and its children's) counts here once it has been reaped.
      await stopSpawnHelper();
      const cpu = process.cpuUsage(cpuStart);
      const report: WorkerProcessReport = {
        type: 'report',
        workerId: worker.workerId,
        startedAt,
        cpuUserMs: cpu.user / 1000,
        cpuSystemMs: cpu.system / 1000,
        childrenCpuMs: childrenCpuMs() - childrenStart,
        rssBaselineBytes,
        rssPeakBytes,
        treeRssPeakBytes,
        ...(phases ? { phases: phases.totals() } : {}),
        eventLoopMaxMs: Math.round(eventLoop.max / 1e6),
      };
      await phases?.stop();
      await queues.close();
      await orchestrator.store.close();
      redis.disconnect();
      process.send?.(report, () => process.exit(0));
    })();
  });
}

await main();
