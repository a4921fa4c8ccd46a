/**
 * Tidying a finished run (done, incomplete, failed, cancelled): its lane branches (in the workspace, or on the
 * remote) and the worker clones, leftover app copies and dependency cache of this data dir are removed. It happens when the run
 * finishes (config `housekeeping.removeOnFinish`, on by default) — at once when no session of the run is still in
 * flight, else at the next reconcile tick — and again in `nightshift prune`. Never the workspace, never the run
 * branch; a resumable run (failed, incomplete) keeps the branches of the lanes it still holds.
 */

import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { moduleLogger } from '../core/log.js';
import { gitRecordPath, runDataDir } from '../core/paths.js';
import { dependencyCacheDir } from '../handoff/app-deps.js';
import { ensureRepo, openRepo, type WorkspaceRepo } from '../handoff/git.js';
import { harnessRemoteCredentials } from '../handoff/remote-credentials.js';
import { credentialGitEnv, withoutCredentials } from '../handoff/remote-url.js';
import {
  deleteBranchesUnder,
  deleteRemoteBranchesUnder,
  listBranchesUnder,
  listRemoteBranchesUnder,
} from '../handoff/run-branches.js';
import type { Orchestrator, StatusListener } from './orchestrator.js';
import { FINISHED_STATUSES, type RunRecord } from './run/run-state.js';
import { runJobStates } from './session-jobs.js';

const log = moduleLogger('orchestrator/housekeeping');

/** What a tidy or a prune freed (or, in a dry run, would free). */
export const Freed = z.object({
  /** Runs whose records (Redis) and run data (evidence, transcripts) were removed: prune only. */
  runs: z.number().int().nonnegative(),
  /** Worker clone directories (`<data>/clones/<worker>/<run>`, `<data>/clones/start/<run>`). */
  clones: z.number().int().nonnegative(),
  /** Lane branches deleted, in the workspace and on the remote. */
  laneBranches: z.number().int().nonnegative(),
  /** App copies left behind by a crashed evaluation (`<data>/runs/<run>/app-copies/…`). */
  appCopies: z.number().int().nonnegative(),
  /** Bytes of the files removed from the data dir. */
  bytes: z.number().int().nonnegative(),
});
export type Freed = z.infer<typeof Freed>;

/** Nothing freed yet. */
export function nothingFreed(): Freed {
  return { runs: 0, clones: 0, laneBranches: 0, appCopies: 0, bytes: 0 };
}

/** Adds `more` into `total`. */
export function addFreed(total: Freed, more: Partial<Freed>): Freed {
  for (const key of Object.keys(total) as Array<keyof Freed>) total[key] += more[key] ?? 0;
  return total;
}

/** Where tidying works: the orchestrator, this machine's data dir, and whether to remove or only count. */
export interface HousekeepingContext {
  orchestrator: Pick<Orchestrator, 'redis' | 'prefix' | 'queues' | 'store'>;
  dataDir: string;
  dryRun?: boolean;
}

/** Bytes of the regular files under `target` (links are counted, never followed). */
export async function treeBytes(target: string): Promise<number> {
  const info = await lstat(target).catch(() => null);
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  const entries = await readdir(target).catch(() => [] as string[]);
  let total = 0;
  for (const entry of entries) total += await treeBytes(path.join(target, entry));
  return total;
}

/**
 * Removes a directory of the data dir (never following a link inside it: `rm` unlinks links) and returns its
 * bytes; in a dry run only counts them.
 */
export async function removeTree(target: string, dryRun: boolean | undefined): Promise<number> {
  const bytes = await treeBytes(target);
  if (!dryRun) await rm(target, { recursive: true, force: true });
  return bytes;
}

/**
 * Moves the directory out of sight in one step, then removes it: a session of a run resumed right after the checks
 * finds no clone (and makes one) instead of a clone half removed. False when it was gone already (another tidy).
 */
async function removeAtOnce(dir: string, trash: string): Promise<boolean> {
  await mkdir(trash, { recursive: true });
  const moved = path.join(trash, randomBytes(6).toString('hex'));
  try {
    await rename(dir, moved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    // Another file system (a data dir whose clones live elsewhere): removed where it is.
    await rm(dir, { recursive: true, force: true });
    return true;
  }
  await rm(moved, { recursive: true, force: true });
  return true;
}

async function subdirectories(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => path.join(dir, entry.name));
}

/** The clone directories of a run in this data dir: one per worker that worked it, and the start clone. */
export async function cloneDirs(dataDir: string, runId: string): Promise<string[]> {
  const workers = await subdirectories(path.join(dataDir, 'clones'));
  const found: string[] = [];
  for (const worker of workers) {
    const dir = path.join(worker, runId);
    if (
      await lstat(dir).then(
        (info) => info.isDirectory(),
        () => false,
      )
    )
      found.push(dir);
  }
  return found;
}

/** The ref prefix of a run's lane branches (orchestrator/lanes/lanes.ts names them `nightshift/<run>/lane-<n>-<feature>`). */
export function laneRefPrefix(runId: string): string {
  return `refs/heads/nightshift/${runId}/lane-`;
}

/** Branches a finished run may lose: all of a final run's; a resumable run keeps those its lanes still hold. */
function removableBranches(run: RunRecord, branches: readonly string[]): string[] {
  const held = new Set(
    run.status === 'failed' || run.status === 'incomplete' ? run.lanes.map((l) => l.branch) : [],
  );
  return branches.filter((branch) => !held.has(branch));
}

/** Deletes the run's lane branches where they live: the local workspace's repository, or the remote. */
async function removeLaneBranches(context: HousekeepingContext, run: RunRecord): Promise<number> {
  const prefix = laneRefPrefix(run.id);
  if (run.workspace.kind === 'local') {
    const dir = realpathSync.native(run.workspace.path);
    const repo = openRepo(dir, { guard: { recordFile: gitRecordPath(context.dataDir, run.id, dir) } });
    const branches = removableBranches(run, await listBranchesUnder(repo, prefix));
    return context.dryRun ? branches.length : deleteBranchesUnder(repo, prefix, branches);
  }
  // The record holds the URL masked: git gets it without userinfo, and the harness's credential as a header.
  const url = withoutCredentials(run.workspace.url);
  const credential = await harnessRemoteCredentials(context.dataDir).find(url);
  const scratch = await scratchRepo(context.dataDir, credential ? credentialGitEnv(url, credential) : {});
  const branches = removableBranches(run, await listRemoteBranchesUnder(scratch, url, prefix));
  return context.dryRun ? branches.length : deleteRemoteBranchesUnder(scratch, url, prefix, branches);
}

/** A repository of the data dir's own to run remote commands from (ls-remote, push --delete). */
function scratchRepo(dataDir: string, remoteEnv: Record<string, string>): Promise<WorkspaceRepo> {
  return ensureRepo(path.join(dataDir, 'housekeeping', 'git'), { remoteEnv: () => remoteEnv });
}

/**
 * Tidies a finished run: its lane branches, this data dir's clones of it, its leftover app copies and its
 * dependency cache. Each part
 * is tried on its own; what failed is returned as a problem (and logged), never thrown.
 */
export async function tidyFinishedRun(
  context: HousekeepingContext,
  run: RunRecord,
): Promise<{ freed: Freed; problems: string[] }> {
  const freed = nothingFreed();
  const problems: string[] = [];
  if (!FINISHED_STATUSES.includes(run.status))
    return { freed, problems: [`${run.id} is ${run.status}, not finished`] };
  try {
    freed.laneBranches = await removeLaneBranches(context, run);
  } catch (error) {
    problems.push(`${run.id}: its lane branches were not removed: ${(error as Error).message}`);
  }
  for (const dir of await cloneDirs(context.dataDir, run.id)) {
    freed.bytes += await removeTree(dir, context.dryRun);
    freed.clones++;
  }
  for (const dir of await subdirectories(path.join(runDataDir(context.dataDir, run.id), 'app-copies'))) {
    freed.bytes += await removeTree(dir, context.dryRun);
    freed.appCopies++;
  }
  // The kept node_modules of the run's app copies (handoff/app-deps.ts): a later replay installs again.
  const dependencyCache = dependencyCacheDir(context.dataDir, run.id);
  if (await lstat(dependencyCache).catch(() => null))
    freed.bytes += await removeTree(dependencyCache, context.dryRun);
  for (const problem of problems) log.warn({ runId: run.id, problem }, 'housekeeping');
  return { freed, problems };
}

/** The Redis set of finished runs still to tidy (a session of theirs was in flight when they finished). */
export function pendingTidyKey(prefix: string): string {
  return `${prefix}housekeeping:to-tidy`;
}

/** Whether a session of the run is still running somewhere (its clone is in use; its lane may still push). */
export async function sessionInFlight(
  orchestrator: Pick<Orchestrator, 'queues'>,
  run: RunRecord,
): Promise<boolean> {
  return (await runJobStates(orchestrator, run)).includes('active');
}

/** Tidies every pending finished run that has no session in flight; returns how many were tidied. */
export async function tidyPending(context: HousekeepingContext): Promise<number> {
  const key = pendingTidyKey(context.orchestrator.prefix);
  let tidied = 0;
  for (const runId of await context.orchestrator.redis.smembers(key)) {
    const run = await context.orchestrator.store.getRun(runId).catch(() => undefined);
    if (run && FINISHED_STATUSES.includes(run.status)) {
      if (await sessionInFlight(context.orchestrator, run)) continue;
      const { freed } = await tidyFinishedRun(context, run);
      log.info({ runId, freed }, 'tidied a finished run');
      tidied++;
    }
    // Gone, resumed, or tidied (its problems logged): not pending any more.
    await context.orchestrator.redis.srem(key, runId);
  }
  return tidied;
}

/**
 * Removes this data dir's clones of finished runs that no session uses any more. The pending set above is
 * tidied once, by whichever process sees it first; a worker on another machine (its own data dir) keeps its
 * clones of the run until this sweep, on that worker's own timer (`WorkerOptions.dataDirChores`), removes them.
 * Returns how many clones went.
 */
export async function tidyFinishedClones(context: HousekeepingContext): Promise<number> {
  let removed = 0;
  const trash = path.join(context.dataDir, 'housekeeping', 'removing');
  // What a crash left halfway through its removal.
  if (!context.dryRun) await rm(trash, { recursive: true, force: true });
  for (const worker of await subdirectories(path.join(context.dataDir, 'clones'))) {
    for (const dir of await subdirectories(worker)) {
      const run = await context.orchestrator.store.getRun(path.basename(dir)).catch(() => undefined);
      if (!run || !FINISHED_STATUSES.includes(run.status)) continue;
      if (await sessionInFlight(context.orchestrator, run)) continue;
      if (context.dryRun || (await removeAtOnce(dir, trash))) removed++;
    }
  }
  if (removed > 0) log.info({ removed }, "removed this data dir's clones of finished runs");
  return removed;
}

/** A status listener that can also be waited for (the CLI's, before it exits). */
export type FlushableListener = StatusListener & { flush?: () => Promise<void> };

/**
 * Wraps a status listener so that a run entering a finished status is queued for tidying and tidied at once
 * when no session of it is in flight; `flush` also waits for that (and tries the queue once more).
 */
export function withHousekeeping<L extends FlushableListener>(
  listener: L,
  context: HousekeepingContext,
): L & { flush: () => Promise<void> } {
  let work: Promise<unknown> = Promise.resolve();
  const tidy = () => {
    work = work.then(() => tidyPending(context)).catch((error) => log.warn({ err: error }, 'tidying failed'));
    return work;
  };
  const wrapped = async (before: RunRecord, after: RunRecord) => {
    await listener(before, after);
    if (FINISHED_STATUSES.includes(after.status) && !FINISHED_STATUSES.includes(before.status)) {
      await context.orchestrator.redis.sadd(pendingTidyKey(context.orchestrator.prefix), after.id);
      void tidy();
    }
  };
  return Object.assign(wrapped, listener, {
    flush: async () => {
      await listener.flush?.();
      await tidy();
    },
  });
}
