/** The messages between bench/scale.ts and its worker processes (bench/scale-worker.ts). */
import { z } from 'zod';
import { PhaseTotals } from './phase-spans.js';

/** What the parent tells a worker process. */
export const WorkerProcessConfig = z.object({
  redisUrl: z.string(),
  prefix: z.string(),
  dataDir: z.string(),
  concurrency: z.number().int().positive(),
  anthropicBaseURL: z.string(),
  /** Bound of a run's event stream (the store's default when absent): a long run needs all its events kept. */
  eventLogMaxLength: z.number().int().positive().optional(),
  /** Sum the harness's spans by phase (bench/phase-spans.ts) and report them. */
  phases: z.boolean().optional(),
});
export type WorkerProcessConfig = z.infer<typeof WorkerProcessConfig>;

/** What a worker process reports when it has stopped. */
export const WorkerProcessReport = z.object({
  type: z.literal('report'),
  workerId: z.string(),
  /** Epoch ms just before the worker started taking jobs. */
  startedAt: z.number(),
  /** CPU of the node process itself (harness, BullMQ, Playwright client), from just before start to stop. */
  cpuUserMs: z.number(),
  cpuSystemMs: z.number(),
  /** CPU of reaped child processes (git, bash, init.sh, Chromium once closed), from /proc/self/stat. */
  childrenCpuMs: z.number(),
  rssBaselineBytes: z.number(),
  rssPeakBytes: z.number(),
  /** Peak summed RSS of the process and all its descendants (Chromium, apps under test, git). */
  treeRssPeakBytes: z.number(),
  /** Wall time per harness phase, when the config asked for it. */
  phases: PhaseTotals.optional(),
  /** The longest pause of the process's event loop while it took jobs (ms): every session of the process waits that long. */
  eventLoopMaxMs: z.number().optional(),
});
export type WorkerProcessReport = z.infer<typeof WorkerProcessReport>;
