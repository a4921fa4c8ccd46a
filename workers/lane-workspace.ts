/**
 * Where lanes work: each worker keeps its own clone per lane (`<data>/clones/<worker>/<run>/lane-<n>`), synced to
 * the lane's branch on the run's origin — the local workspace's repository, or the remote of `--repo` — and
 * pushes the lane's branch back there, fast-forward only, after every session. So a lane's next session can run on
 * any worker, and nothing but the harness's own git touches the workspace while lanes work.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { gitRecordPath } from '../core/paths.js';
import { askGit, head, locked, openRepo, type WorkspaceRepo } from '../handoff/git.js';
import { branchHeads, pushFastForward, syncWorkspace } from '../handoff/git-remote.js';
import { mergeInto } from '../handoff/lane-merge.js';
import { harnessRemoteCredentials } from '../handoff/remote-credentials.js';
import type { LaneRecord } from '../orchestrator/lanes/lanes.js';
import type { RunRecord } from '../orchestrator/run/index.js';
import type { SessionResult } from '../roles/session-result.js';

const log = moduleLogger('workers/lane-workspace');

/** What lane work needs of a worker. */
export interface LaneWorkerContext {
  dataDir: string;
  workerId: string;
}

/** The run's origin: a remote URL, or the local workspace's directory (lanes clone and push to it). */
export function laneOrigin(run: RunRecord): string {
  return run.workspace.kind === 'remote' ? run.workspace.url : run.workspace.path;
}

/** The local workspace's repository, guarded like every harness git command on it. */
export function mainRepo(context: LaneWorkerContext, run: RunRecord): WorkspaceRepo {
  if (run.workspace.kind !== 'local') throw new Error('mainRepo: a remote run has no local workspace');
  const dir = realpathSync.native(run.workspace.path);
  return openRepo(dir, { guard: { recordFile: gitRecordPath(context.dataDir, run.id, dir) } });
}

/** The run branch: the remote run's, or the branch checked out in the local workspace. */
export async function runBranch(context: LaneWorkerContext, run: RunRecord): Promise<string> {
  if (run.workspace.kind === 'remote') return run.workspace.branch;
  const name = (await askGit(mainRepo(context, run), ['symbolic-ref', '--short', 'HEAD'])).trim();
  return name || 'main';
}

/** A lane's clone as its sync left it: the commit checked out (nothing left over) and the run branch's name. */
export interface SyncedLane {
  repo: WorkspaceRepo;
  head: string;
  runBranch: string;
}

/**
 * This worker's clone of the lane, at the head of the lane's branch (made from the run branch the first time).
 * `laneOnly`: what follows reads the lane's branch alone (an evaluator's session), so the clone need not hold the run
 * branch's newest head; otherwise (a generator merges the run branch in, the merge queue sends a lane back) it must.
 */
export async function syncLane(
  context: LaneWorkerContext,
  run: RunRecord,
  lane: Pick<LaneRecord, 'lane' | 'branch'>,
  options: { laneOnly?: boolean } = {},
): Promise<SyncedLane> {
  const cacheDir = path.join(context.dataDir, 'clones', context.workerId, run.id, `lane-${lane.lane}`);
  const baseBranch = await runBranch(context, run);
  const synced = await syncWorkspace({
    url: laneOrigin(run),
    branch: lane.branch,
    baseBranch,
    cacheDir,
    guard: { recordFile: gitRecordPath(context.dataDir, run.id, cacheDir) },
    credentials: harnessRemoteCredentials(context.dataDir),
    // One session at a time works on a lane: the branch reaches the remote with that session's push (a push less).
    pushNewBranch: false,
    ...(await localOriginHeads(context, run, options.laneOnly ? [lane.branch] : [lane.branch, baseBranch])),
  });
  return { repo: synced.repo, head: synced.head, runBranch: baseBranch };
}

/**
 * A local run's heads of the branches a lane's sync needs, read in its repository (under its guard): the sync
 * fetches only when the clone's last fetch left other heads (a fetch is five or six git processes, this read one;
 * an evaluator's lane has not moved since its generator pushed it). None for a remote run, or a lane not pushed yet.
 */
async function localOriginHeads(
  context: LaneWorkerContext,
  run: RunRecord,
  branches: string[],
): Promise<{ remoteHeads?: Map<string, string> }> {
  if (run.workspace.kind !== 'local') return {};
  const origin = mainRepo(context, run);
  const heads = await locked(origin, () => branchHeads(origin, 'refs/heads/', branches));
  return heads.size === branches.length ? { remoteHeads: heads } : {};
}

/**
 * Merges the run branch into the lane's clone when it merges without conflict (a conflict is left for the merge
 * queue, which sends it to a generator with the files named); returns the lane's head after.
 */
export async function refreshLane(
  run: RunRecord,
  synced: SyncedLane,
  lane: Pick<LaneRecord, 'lane' | 'featureId'>,
  seq: number,
): Promise<string> {
  const message = mergeMessage(run.id, seq, lane, 'into');
  // Conflicts a rule fits are merged here too (the run branch's lines first), so the lane works on the run's lines.
  const attempt = await mergeInto(synced.repo, `refs/remotes/origin/${synced.runBranch}`, {
    message,
    rules: { runBranch: 'theirs' },
  });
  return attempt.kind === 'merged' ? attempt.head : synced.head;
}

/** The message of a merge commit of the merge queue: a lane into the run branch, or the run branch into a lane. */
export function mergeMessage(
  runId: string,
  seq: number,
  lane: Pick<LaneRecord, 'lane' | 'featureId'>,
  how: 'from' | 'into',
): string {
  const subject =
    how === 'from'
      ? `nightshift(merge): ${lane.featureId} from lane ${lane.lane}`
      : `nightshift(merge): ${lane.featureId} run branch into lane ${lane.lane}`;
  return `${subject}\n\nNightshift-Role: merge\nNightshift-Run: ${runId}\nNightshift-Session: ${seq}\nNightshift-Feature: ${lane.featureId}`;
}

/**
 * Pushes the lane's branch to the origin. Into a local workspace the push runs git's receive side in its `.git`,
 * which is checked against its known-good record first (the guard), like before any harness git command there.
 */
export async function publishLane(
  context: LaneWorkerContext,
  run: RunRecord,
  repo: WorkspaceRepo,
  branch: string,
): Promise<void> {
  if (run.workspace.kind === 'local') await head(mainRepo(context, run));
  await pushFastForward(repo, branch);
}

/** Pushes the session's commits fast-forward; a rejected push means the work is kept only locally — say so. */
export async function publishSession(publish: () => Promise<void>, result: SessionResult): Promise<void> {
  try {
    await publish();
  } catch (error) {
    log.error({ err: error }, 'push rejected: the session result is recorded as aborted');
    result.outcome = 'aborted';
    result.reason = `push rejected: ${(error as Error).message}`;
  }
}
