/**
 * `nightshift prune`: every finished run (done, incomplete, failed, cancelled) is tidied (lane branches, this data
 * dir's worker clones, leftover app copies), and one that finished longer ago than the age given also loses its run
 * data (evidence: screenshots and traces; transcripts, app logs, replays, backups) and its Redis records (the run,
 * its features, sessions and events, its queue jobs and schedule). A run that is not finished is never touched;
 * nor is any workspace or run branch.
 */
import path from 'node:path';
import { z } from 'zod';
import { runDataDir } from '../core/paths.js';
import {
  addFreed,
  Freed,
  type HousekeepingContext,
  nothingFreed,
  removeTree,
  tidyFinishedRun,
} from './housekeeping.js';
import { runKeys, runsIndexKey, sessionJobId } from './keys.js';
import type { Orchestrator } from './orchestrator.js';
import { scanKeys } from './redis-client.js';
import { FINISHED_STATUSES, type RunRecord, RunStatus, runName } from './run/run-state.js';
import { listSchedules } from './schedules.js';

/** One run a prune touched. */
export const PrunedRun = z.object({
  id: z.string(),
  name: z.string(),
  status: RunStatus,
  finishedAt: z.string().nullable(),
  /** `everything`: records and run data too (finished before the cutoff); `tidied`: branches, clones, copies. */
  removed: z.enum(['everything', 'tidied']),
  freed: Freed,
});
export type PrunedRun = z.infer<typeof PrunedRun>;

/** `nightshift prune --json`. */
export const PruneReport = z.object({
  /** Nothing was removed: the report says what would be. */
  dryRun: z.boolean(),
  olderThanMs: z.number().int().positive(),
  /** Runs that finished before this instant lose their records and run data. */
  before: z.string(),
  freed: Freed,
  /** The runs that had something to remove. */
  runs: z.array(PrunedRun),
  /** Runs left alone because they are not finished. */
  notFinished: z.number().int().nonnegative(),
  /** What could not be removed, and why. */
  problems: z.array(z.string()),
});
export type PruneReport = z.infer<typeof PruneReport>;

/** What pruning needs: the whole orchestrator (schedules and jobs are removed with a run). */
export interface PruneContext extends HousekeepingContext {
  orchestrator: Orchestrator;
}

/** When a finished run finished (older records may lack `finishedAt`: their last change then). */
function finishedAt(run: RunRecord): string {
  return run.finishedAt ?? run.updatedAt;
}

/** Prunes every finished run; see the module comment. */
export async function pruneRuns(
  context: PruneContext,
  options: { olderThanMs: number; now: Date },
): Promise<PruneReport> {
  const before = new Date(options.now.getTime() - options.olderThanMs);
  const all = await context.orchestrator.store.listRuns();
  const report: PruneReport = {
    dryRun: Boolean(context.dryRun),
    olderThanMs: options.olderThanMs,
    before: before.toISOString(),
    freed: nothingFreed(),
    runs: [],
    notFinished: all.filter((run) => !FINISHED_STATUSES.includes(run.status)).length,
    problems: [],
  };
  // A schedule means someone still means to go on with the run: its records stay.
  const scheduled = new Set((await listSchedules(context.orchestrator)).map((schedule) => schedule.runId));
  for (const run of all.filter((candidate) => FINISHED_STATUSES.includes(candidate.status))) {
    const { freed, problems } = await tidyFinishedRun(context, run);
    report.problems.push(...problems);
    const old = Date.parse(finishedAt(run)) <= before.getTime() && !scheduled.has(run.id);
    if (scheduled.has(run.id) && Date.parse(finishedAt(run)) <= before.getTime()) {
      report.problems.push(
        `${run.id}: records kept, it has a schedule (\`nightshift schedule remove ${run.id}\` first)`,
      );
    }
    if (old) {
      const removed = await removeRun(context, run);
      report.problems.push(...removed.problems);
      addFreed(freed, removed.freed);
    }
    const anything = Object.values(freed).some((count) => count > 0);
    if (anything || old) {
      report.runs.push({
        id: run.id,
        name: runName(run),
        status: run.status,
        finishedAt: run.finishedAt,
        removed: old ? 'everything' : 'tidied',
        freed,
      });
    }
    addFreed(report.freed, freed);
  }
  return PruneReport.parse(report);
}

/** A run's data dir and records (checked finished again, atomically, before the records go). */
async function removeRun(
  context: PruneContext,
  run: RunRecord,
): Promise<{ freed: Partial<Freed>; problems: string[] }> {
  const dir = runDataDir(context.dataDir, run.id);
  // The workspace is never removed, even one a user put inside the run's data dir.
  if (run.workspace.kind === 'local' && !path.relative(dir, run.workspace.path).startsWith('..')) {
    return { freed: {}, problems: [`${run.id}: kept, its workspace ${run.workspace.path} is inside ${dir}`] };
  }
  if (!context.dryRun && !(await deleteRecords(context.orchestrator, run.id))) {
    return { freed: {}, problems: [`${run.id}: kept, it was resumed while being pruned`] };
  }
  const bytes = await removeTree(dir, context.dryRun);
  if (!context.dryRun) await removeQueueTraces(context.orchestrator, run);
  return { freed: { runs: 1, bytes }, problems: [] };
}

/**
 * Deletes a run's keys (record, features, sessions, events, window…) and its index entry, unless it stopped being
 * finished meanwhile (a resume): the run key is watched, so the delete happens only on the state just read.
 */
async function deleteRecords(orchestrator: Orchestrator, runId: string): Promise<boolean> {
  const keys = runKeys(orchestrator.prefix, runId);
  const connection = orchestrator.redis.duplicate();
  try {
    const found = await scanKeys(connection, `${keys.run}*`);
    await connection.watch(keys.run);
    const json = await connection.get(keys.run);
    const status = json ? (JSON.parse(json) as { status?: string }).status : undefined;
    if (!status || !FINISHED_STATUSES.includes(status as RunStatus)) {
      await connection.unwatch();
      return false;
    }
    // The run's keys share its hash slot; the index lives elsewhere, so it is updated after.
    const done = await connection
      .multi()
      .del(...new Set([keys.run, ...found]))
      .exec();
    if (done === null) return false;
    await connection.zrem(runsIndexKey(orchestrator.prefix), runId);
    return true;
  } finally {
    connection.disconnect();
  }
}

/** The run's finished queue jobs, which would otherwise point at a run that is gone. */
async function removeQueueTraces(orchestrator: Orchestrator, run: RunRecord): Promise<void> {
  for (let seq = 1; seq <= run.seq; seq++) {
    const job = await orchestrator.queues.sessions.getJob(sessionJobId(run.id, seq));
    await job?.remove().catch(() => undefined);
  }
}
