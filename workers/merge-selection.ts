/**
 * The checks a merge-queue step replays on the merged head: by default only those the merged lanes' changes can
 * affect (evaluation/affected-checks.ts) plus the lanes' own and any a full sweep tied to them; every passing
 * feature's with `mergeChecks.affected: all`. The rest waits for the scheduled full sweep (workers/full-sweep.ts).
 */
import path from 'node:path';
import type { CheckFile, RecordedCheck } from '../checks/format.js';
import { checkFilePath, readCheckFile } from '../checks/store.js';
import { FileMemo } from '../core/file-memo.js';
import { moduleLogger } from '../core/log.js';
import { affectedChecks } from '../evaluation/affected-checks.js';
import { checkFootprints, importGraph, laneChange } from '../evaluation/affected-inputs.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import type { LaneRecord } from '../orchestrator/lanes/lanes.js';
import type { RunState } from '../orchestrator/run/index.js';

const log = moduleLogger('workers/merge-selection');

/** Check files as read, again only when one changed: every merge and full sweep reads every passing feature's. */
const CHECK_FILES = new FileMemo<CheckFile | null>();

/** The recorded checks of every passing feature and of `also`, as they are in `repo`'s work tree. */
export async function passingChecks(
  repo: WorkspaceRepo,
  state: RunState,
  also: readonly string[] = [],
): Promise<RecordedCheck[]> {
  const ids = state.features.filter((f) => (f.passes && !f.blocked) || also.includes(f.id)).map((f) => f.id);
  const checks: RecordedCheck[] = [];
  for (const id of ids) {
    const file = await CHECK_FILES.get(path.join(repo.dir, checkFilePath(id)), () =>
      readCheckFile(repo.dir, id),
    ).catch(() => null);
    if (file) checks.push(file.current);
  }
  return checks;
}

/**
 * The checks to replay after merging `merged` onto `before` (the merged head is checked out in `repo`); `passed`:
 * features this step already made pass. Falls back to every check when the selection's inputs cannot be read.
 */
export async function checksForMerge(
  repo: WorkspaceRepo,
  state: RunState,
  step: { before: string; after: string; merged: readonly LaneRecord[]; passed: readonly string[] },
): Promise<RecordedCheck[]> {
  const own = [...step.passed, ...step.merged.map((lane) => lane.featureId)];
  const all = await passingChecks(repo, state, own);
  const strategy = state.run.config.mergeChecks.affected;
  if (strategy === 'all' || step.merged.length === 0) return all;
  const byId = new Map(state.features.map((feature) => [feature.id, feature]));
  const always = step.merged.flatMap((lane) => byId.get(lane.featureId)?.replayOnMerge ?? []);
  try {
    const [first, ...rest] = step.merged.map((lane) => lane.featureId) as [string, ...string[]];
    const change = await laneChange(repo, { before: step.before, after: step.after }, first);
    const changes = [
      change,
      ...[...rest, ...step.passed].map((featureId) => ({ featureId, files: [], changedLines: [] })),
    ];
    const footprints = await checkFootprints(repo, step.after, all);
    const selected = affectedChecks({
      changes,
      footprints,
      graph: await importGraph(repo),
      strategy,
      always,
    });
    return all.filter((check) => selected.has(check.featureId));
  } catch (error) {
    log.warn(
      { err: error, runId: state.run.id },
      'could not work out the affected checks; replaying all of them',
    );
    return all;
  }
}
