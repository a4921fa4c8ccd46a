/**
 * The merge queue's step (lanes mode): merges one lane whose feature passed on its branch into the run branch,
 * then replays every recorded check of the passing features and the new one on the merged head, on a freshly
 * started app. Only a green head stays: the feature passes on the run branch. A conflict, or a red head (the merge
 * undone), goes back to the lane: the run branch is merged into it, with the conflict markers or the red checks in
 * the feature's feedback, for its next generator. Runs holding the run's lock, so merges happen one at a time.
 */
import path from 'node:path';
import type { RecordedCheck } from '../checks/format.js';
import { readCheckFile } from '../checks/store.js';
import { moduleLogger } from '../core/log.js';
import { gitRecordPath } from '../core/paths.js';
import { feedbackPath } from '../handoff/feedback.js';
import { checkpoint, head, rollback, type WorkspaceRepo } from '../handoff/git.js';
import { pushFastForward, syncWorkspace } from '../handoff/git-remote.js';
import { mergeInto, undoMerge } from '../handoff/lane-merge.js';
import { writeWorkspaceFile } from '../handoff/safe-fs.js';
import { sandboxForRole } from '../orchestrator/config.js';
import type { MergeResult } from '../orchestrator/lane-store.js';
import type { LaneRecord } from '../orchestrator/lanes.js';
import type { RunRecord, RunState } from '../orchestrator/run-state.js';
import { failureText, replayOnOneApp } from '../roles/check-sweep.js';
import type { BrowserSource } from '../roles/types.js';
import {
  type LaneWorkerContext,
  laneOrigin,
  mainRepo,
  publishLane,
  runBranch,
  syncLane,
} from './lane-workspace.js';

const log = moduleLogger('workers/merge-processor');

/** What a merge needs of the worker. */
export interface MergeContext extends LaneWorkerContext {
  browser: BrowserSource;
}

/** Runs the merge of `lane` (its feature passed on its branch) and says how it ended; never throws. */
export async function mergeLane(
  context: MergeContext,
  state: RunState,
  lane: LaneRecord,
  seq: number,
): Promise<MergeResult> {
  const { run } = state;
  const base = { lane: lane.lane, featureId: lane.featureId, head: null, checked: [] as string[] };
  try {
    const branch = await runBranch(context, run);
    const target = await runBranchCopy(context, run, branch);
    const before = (await head(target)) as string;
    await rollback(target, before);
    const laneRef =
      run.workspace.kind === 'local' ? `refs/heads/${lane.branch}` : `refs/remotes/origin/${lane.branch}`;
    const message = `nightshift(merge): ${lane.featureId} from lane ${lane.lane}\n\nNightshift-Role: merge\nNightshift-Run: ${run.id}\nNightshift-Session: ${seq}\nNightshift-Feature: ${lane.featureId}`;
    const attempt = await mergeInto(target, laneRef, { message });
    if (attempt.kind === 'conflict') {
      const detail = `conflicting files: ${attempt.files.join(', ')}`;
      await sendBack(context, run, lane, branch, seq, conflictFeedback(lane, attempt.files));
      return { ...base, outcome: 'conflict', detail };
    }
    const checks = await checksToReplay(target, state, lane.featureId);
    const results = await replayOnOneApp(
      {
        runId: run.id,
        session: seq,
        dataDir: context.dataDir,
        sandbox: sandboxForRole(run.config.sandbox, 'evaluator'),
        appReadyTimeoutMs: run.config.app.readyTimeoutSeconds * 1000,
      },
      target,
      context.browser,
      checks,
    );
    const red = checks.filter((check) => !results.get(check.featureId)?.ok);
    if (red.length > 0) {
      await undoMerge(target, before);
      const lines = red.map(
        (check) => `${check.featureId}: ${failureText(check, results.get(check.featureId)!)}`,
      );
      await sendBack(context, run, lane, branch, seq, rejectedFeedback(lane, lines));
      return { ...base, outcome: 'rejected', detail: lines.join('; ') };
    }
    if (run.workspace.kind === 'remote') await pushFastForward(target, branch);
    return {
      ...base,
      outcome: 'merged',
      detail: '',
      head: attempt.head,
      checked: checks.map((c) => c.featureId),
    };
  } catch (error) {
    log.error({ err: error, runId: run.id, lane: lane.lane }, 'merge failed');
    return { ...base, outcome: 'error', detail: (error as Error).message.split('\n')[0] ?? 'merge failed' };
  }
}

/** Where the run branch is checked out for the merge: the local workspace, or this worker's clone of the remote. */
async function runBranchCopy(
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
  });
  return synced.repo;
}

/** The recorded checks of every passing feature and of the merged one, as they are on the merged head. */
async function checksToReplay(
  repo: WorkspaceRepo,
  state: RunState,
  featureId: string,
): Promise<RecordedCheck[]> {
  const ids = state.features.filter((f) => f.passes || f.id === featureId).map((f) => f.id);
  const checks: RecordedCheck[] = [];
  for (const id of ids) {
    const file = await readCheckFile(repo.dir, id).catch(() => null);
    if (file) checks.push(file.current);
  }
  return checks;
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
  const repo = await syncLane(context, run, lane);
  const message = `nightshift(merge): ${lane.featureId} run branch into lane ${lane.lane}\n\nNightshift-Role: merge\nNightshift-Run: ${run.id}\nNightshift-Session: ${seq}\nNightshift-Feature: ${lane.featureId}`;
  await mergeInto(repo, `refs/remotes/origin/${branch}`, { message, keepConflicts: true });
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
