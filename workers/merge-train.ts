/**
 * The merge queue's step (lanes mode), a merge train: every lane waiting whose feature passed on its branch is
 * merged into the run branch in turn, then every recorded check of the passing features and the new ones is
 * replayed on the merged head, on a freshly started app. Only a green head stays: the features pass on the run
 * branch. A red train is taken apart (each lane merged and checked on its own) so only the lane that breaks
 * something goes back. A conflict, or a red merge (undone), goes back to the lane: the run branch is merged into it,
 * with the conflict markers or the red checks in the feature's feedback, for its next generator. Runs holding the
 * run's lock, so one train runs at a time.
 */
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { gitRecordPath } from '../core/paths.js';
import type { BrowserSource } from '../evaluation/browser-source.js';
import { failureText, replayOnOneApp } from '../evaluation/check-sweep.js';
import { type ReplayTally, tallyReplays } from '../evaluation/replay-tally.js';
import { feedbackPath } from '../handoff/feedback.js';
import { checkpoint, head, rollback, type WorkspaceRepo } from '../handoff/git.js';
import { pushFastForward, syncWorkspace } from '../handoff/git-remote.js';
import { mergeInto, undoMerge } from '../handoff/lane-merge.js';
import type { MergeRules } from '../handoff/merge-rules.js';
import { harnessRemoteCredentials } from '../handoff/remote-credentials.js';
import { writeWorkspaceFile } from '../handoff/safe-fs.js';
import { appStartSettings, sandboxForRole } from '../orchestrator/config.js';
import type { MergeResult } from '../orchestrator/lanes/lane-store.js';
import type { LaneRecord } from '../orchestrator/lanes/lanes.js';
import type { RunRecord, RunState } from '../orchestrator/run/index.js';
import {
  type LaneWorkerContext,
  laneOrigin,
  mainRepo,
  mergeMessage,
  publishLane,
  runBranch,
  syncLane,
} from './lane-workspace.js';
import { boxedLockfileRegenerator } from './lockfile-box.js';
import { checksForMerge } from './merge-selection.js';

const log = moduleLogger('workers/merge-train');

/** What a merge needs of the worker. */
export interface MergeContext extends LaneWorkerContext {
  browser: BrowserSource;
  /** Told each batch of the queue's replays (the worker logs it as a `check.replayed` event for the metrics). */
  onReplayed?: (runId: string, seq: number, tally: ReplayTally) => void | Promise<void>;
}

/**
 * Merges the lanes waiting in the queue (a merge train): each lane in turn into the run branch (a conflicting one
 * is sent back), then one check of the merged head. Green: every merged lane counts. Red with one lane: that merge
 * is undone and sent back. Red with several: all are undone and merged again one at a time, each checked on its
 * own, so only the lane that breaks something is sent back. Says how each lane ended; never throws.
 */
export async function mergeLanes(
  context: MergeContext,
  state: RunState,
  lanes: LaneRecord[],
  seq: number,
): Promise<MergeResult[]> {
  const { run } = state;
  let train: MergeTrain;
  try {
    const branch = await runBranch(context, run);
    const target = await runBranchCopy(context, run, branch);
    const before = (await head(target)) as string;
    await rollback(target, before);
    train = { context, state, target, branch, seq, passed: [], resolved: new Map(), head: before };
  } catch (error) {
    log.error({ err: error, runId: run.id }, 'the merge queue could not start');
    return lanes.map((lane) => errorResult(lane, error));
  }
  const results = await mergeAndCheck(train, lanes, lanes.length > 1);
  return lanes.map((lane) => results.get(lane.lane) ?? errorResult(lane, new Error('no result')));
}

/** One merge-queue step: the run branch's copy, and the features this step has made pass so far. */
interface MergeTrain {
  context: MergeContext;
  state: RunState;
  target: WorkspaceRepo;
  branch: string;
  seq: number;
  passed: string[];
  /** App files the rules merged, per lane (issue 29). */
  resolved: Map<number, string[]>;
  /** The run branch's head in the copy now (kept here: every merge and undo of the step moves it). */
  head: string;
}

async function mergeAndCheck(
  train: MergeTrain,
  lanes: LaneRecord[],
  mayRetryAlone: boolean,
): Promise<Map<number, MergeResult>> {
  const { context, state, target, seq } = train;
  const results = new Map<number, MergeResult>();
  const before = train.head;
  const merged: LaneRecord[] = [];
  for (const lane of lanes) {
    const outcome = await mergeOne(train, lane).catch(async (error: unknown) => {
      // A merge that threw halfway (a lockfile rule, the commit) must not be committed with the next lane's.
      await undoMerge(target, train.head).catch(() => undefined);
      return errorResult(lane, error);
    });
    if (outcome === 'merged') merged.push(lane);
    else results.set(lane.lane, outcome);
  }
  if (merged.length === 0) return results;
  const checked = await checkHead(train, merged, before).catch((error: unknown) => error as Error);
  if (checked instanceof Error || checked.red.length > 0) {
    await undoMerge(target, before);
    train.head = before;
    if (merged.length > 1 && mayRetryAlone) {
      for (const lane of merged)
        for (const [key, value] of await mergeAndCheck(train, [lane], false)) results.set(key, value);
      return results;
    }
    for (const lane of merged) {
      if (checked instanceof Error) results.set(lane.lane, errorResult(lane, checked));
      else {
        await sendBack(context, state.run, lane, train.branch, seq, rejectedFeedback(lane, checked.red));
        results.set(lane.lane, { ...laneBase(lane), outcome: 'rejected', detail: checked.red.join('; ') });
      }
    }
    return results;
  }
  if (state.run.workspace.kind === 'remote') await pushFastForward(target, train.branch);
  train.passed.push(...merged.map((lane) => lane.featureId));
  for (const lane of merged)
    results.set(lane.lane, {
      ...laneBase(lane),
      outcome: 'merged',
      detail: '',
      head: train.head,
      checked: checked.green,
      resolved: train.resolved.get(lane.lane) ?? [],
    });
  return results;
}

/** Merges one lane into the run branch's copy: `merged`, or the conflict (sent back to the lane). */
async function mergeOne(train: MergeTrain, lane: LaneRecord): Promise<'merged' | MergeResult> {
  const { context, state, target, branch, seq } = train;
  const laneRef =
    state.run.workspace.kind === 'local' ? `refs/heads/${lane.branch}` : `refs/remotes/origin/${lane.branch}`;
  // Conflicts a rule fits are merged here (issue 29); the replay of the recorded checks verifies them like any merge.
  const rules: MergeRules = {
    runBranch: 'ours',
    regenerateLockfile: boxedLockfileRegenerator({
      runId: state.run.id,
      session: seq,
      dataDir: context.dataDir,
      sandbox: state.run.config.sandbox,
    }),
  };
  const attempt = await mergeInto(target, laneRef, {
    message: mergeMessage(state.run.id, seq, lane, 'from'),
    rules,
  });
  train.resolved.set(lane.lane, attempt.resolved);
  if (attempt.kind === 'merged') {
    train.head = attempt.head;
    return 'merged';
  }
  await sendBack(context, state.run, lane, branch, seq, conflictFeedback(lane, attempt.files));
  return {
    ...laneBase(lane),
    outcome: 'conflict',
    detail: `conflicting files: ${attempt.files.join(', ')}`,
    resolved: attempt.resolved,
  };
}

/** Replays on the merged head the recorded checks the merged lanes can affect and their own (merge-selection.ts). */
async function checkHead(
  train: MergeTrain,
  merged: LaneRecord[],
  before: string,
): Promise<{ green: string[]; red: string[] }> {
  const { context, state, target, seq } = train;
  const { run } = state;
  const after = train.head;
  const checks = await checksForMerge(target, state, { before, after, merged, passed: train.passed });
  const results = await replayOnOneApp(
    {
      runId: run.id,
      session: seq,
      dataDir: context.dataDir,
      sandbox: sandboxForRole(run.config.sandbox, 'evaluator'),
      ...appStartSettings(run.config.app),
      onReplayed: (results) => context.onReplayed?.(run.id, seq, tallyReplays('merge', results)),
    },
    target,
    context.browser,
    checks,
  );
  const red = checks.filter((check) => !results.get(check.featureId)?.ok);
  return {
    green: checks.filter((check) => results.get(check.featureId)?.ok).map((check) => check.featureId),
    red: red.map((check) => `${check.featureId}: ${failureText(check, results.get(check.featureId)!)}`),
  };
}

function laneBase(lane: LaneRecord) {
  return {
    lane: lane.lane,
    featureId: lane.featureId,
    head: null,
    checked: [] as string[],
    resolved: [] as string[],
  };
}

function errorResult(lane: LaneRecord, error: unknown): MergeResult {
  log.error({ err: error, lane: lane.lane }, 'merge failed');
  const message = error instanceof Error ? error.message : String(error);
  return { ...laneBase(lane), outcome: 'error', detail: message.split('\n')[0] ?? 'merge failed' };
}

/** Where the run branch is checked out for the merge: the local workspace, or this worker's clone of the remote. */
export async function runBranchCopy(
  context: LaneWorkerContext,
  run: RunRecord,
  branch: string,
): Promise<WorkspaceRepo> {
  if (run.workspace.kind === 'local') return mainRepo(context, run);
  const cacheDir = path.join(context.dataDir, 'clones', context.workerId, run.id, 'run-branch');
  const synced = await syncWorkspace({
    url: laneOrigin(run),
    branch,
    cacheDir,
    guard: { recordFile: gitRecordPath(context.dataDir, run.id, cacheDir) },
    credentials: harnessRemoteCredentials(context.dataDir),
  });
  return synced.repo;
}

/** The run branch merged into the lane (conflict markers committed), the feedback written, the lane pushed. */
async function sendBack(
  context: LaneWorkerContext,
  run: RunRecord,
  lane: LaneRecord,
  branch: string,
  seq: number,
  feedback: string,
): Promise<void> {
  const { repo } = await syncLane(context, run, lane);
  const message = mergeMessage(run.id, seq, lane, 'into');
  await mergeInto(repo, `refs/remotes/origin/${branch}`, {
    message,
    keepConflicts: true,
    rules: { runBranch: 'theirs' },
  });
  await writeWorkspaceFile(repo.dir, feedbackPath(lane.featureId), feedback);
  await checkpoint(repo, {
    role: 'merge',
    runId: run.id,
    session: seq,
    featureId: lane.featureId,
    summary: 'feedback from the merge queue',
    paths: [feedbackPath(lane.featureId)],
  });
  await publishLane(context, run, repo, lane.branch);
}

function conflictFeedback(lane: LaneRecord, files: string[]): string {
  return [
    `# Feedback for ${lane.featureId}: merge conflict`,
    '',
    `${lane.featureId} passed on its lane, but its branch conflicts with the run branch, where other features were merged meanwhile.`,
    'The run branch is now merged into this lane. These files still hold conflict markers (<<<<<<<, =======, >>>>>>>):',
    '',
    ...files.map((file) => `- ${file}`),
    '',
    `Resolve each one so that ${lane.featureId} and the features already on the run branch all work, remove every marker, and commit.`,
    '',
  ].join('\n');
}

function rejectedFeedback(lane: LaneRecord, failures: string[]): string {
  return [
    `# Feedback for ${lane.featureId}: the merge broke recorded checks`,
    '',
    `${lane.featureId} passed on its lane and merged cleanly, but on the merged head these recorded checks failed, so the merge was undone:`,
    '',
    ...failures.map((line) => `- ${line}`),
    '',
    `The run branch is now merged into this lane. Make ${lane.featureId} work without breaking those features, then commit.`,
    '',
  ].join('\n');
}
