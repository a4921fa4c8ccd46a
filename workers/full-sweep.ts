/**
 * The scheduled full sweep of lanes mode: every passing feature's recorded check replayed on the run branch's head
 * (every `fullSweepEveryMerges` merges or `fullSweepEveryMinutes`, and before the run is declared done), so what the
 * merges' affected-check selection left out never stays unchecked for long. A red check is traced to the merge that
 * broke it by bisecting the queue's merge commits since the last green full sweep (replaying the red checks on each
 * probed commit); that merge's feature is sent back, failing, with the red checks as its feedback on the run branch.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { RecordedCheck } from '../checks/format.js';
import type { ReplayResult } from '../checks/replay.js';
import { moduleLogger } from '../core/log.js';
import { mergedFeatureOf } from '../evaluation/affected-inputs.js';
import { failureText, replayOnOneApp, type SweepInput } from '../evaluation/check-sweep.js';
import { tallyReplays } from '../evaluation/replay-tally.js';
import { feedbackPath } from '../handoff/feedback.js';
import { checkpoint, head, rollback, runGit, type WorkspaceRepo } from '../handoff/git.js';
import { pushFastForward } from '../handoff/git-remote.js';
import { writeWorkspaceFile } from '../handoff/safe-fs.js';
import { appStartSettings, sandboxForRole } from '../orchestrator/config.js';
import { type FullSweepResult, sentBackByFeature } from '../orchestrator/lanes/sweep-store.js';
import type { RunState } from '../orchestrator/run/index.js';
import { runBranch } from './lane-workspace.js';
import { passingChecks } from './merge-selection.js';
import { type MergeContext, runBranchCopy } from './merge-train.js';

const log = moduleLogger('workers/full-sweep');

/** A merge commit of the queue on the run branch's first-parent history, oldest first. */
interface QueueMerge {
  sha: string;
  featureId: string;
}

/** Replays every passing feature's check on the run branch's head; red ones traced to their merge and sent back. */
export async function fullSweep(
  context: MergeContext,
  state: RunState,
  seq: number,
): Promise<FullSweepResult> {
  const { run } = state;
  const branch = await runBranch(context, run);
  const target = await runBranchCopy(context, run, branch);
  const headSha = (await head(target)) as string;
  await rollback(target, headSha);
  const input: SweepInput = {
    runId: run.id,
    session: seq,
    dataDir: context.dataDir,
    sandbox: sandboxForRole(run.config.sandbox, 'evaluator'),
    ...appStartSettings(run.config.app),
    // The bisect's probes replay too: every replay of the sweep counts.
    onReplayed: (results) => context.onReplayed?.(run.id, seq, tallyReplays('full_sweep', results)),
  };
  const checks = await passingChecks(target, state);
  const results = await replayOnOneApp(input, target, context.browser, checks);
  const red = checks.filter((check) => !results.get(check.featureId)?.ok);
  const green = checks.filter((check) => results.get(check.featureId)?.ok).map((check) => check.featureId);
  if (red.length === 0) return { head: headSha, green, sentBack: [], checked: checks.length };
  const merges = await queueMerges(target, run.counters.fullSweep.greenHead, headSha);
  const culprits = await bisect({ context, input, target, merges, red });
  const sentBack = red.map((check) => {
    const failure = failureText(check, results.get(check.featureId) as ReplayResult);
    return { featureId: culprits.get(check.featureId) ?? check.featureId, victim: check.featureId, failure };
  });
  const written = await writeFeedback(target, run.id, seq, sentBack);
  if (written && run.workspace.kind === 'remote') await pushFastForward(target, branch);
  log.info({ runId: run.id, seq, red: sentBack }, 'the full sweep found red checks');
  return { head: written ?? headSha, green, sentBack, checked: checks.length };
}

/** The queue's merge commits after `since` (all of them when null) up to `until`, oldest first. */
async function queueMerges(repo: WorkspaceRepo, since: string | null, until: string): Promise<QueueMerge[]> {
  const range = since ? `${since}..${until}` : until;
  const log = await runGit(repo, [
    'log',
    '--first-parent',
    '--merges',
    '--reverse',
    '--format=%H%x00%s',
    range,
  ]);
  return log
    .split('\n')
    .filter((line) => line.includes('\0'))
    .flatMap((line) => {
      const [sha = '', subject = ''] = line.split('\0');
      const featureId = mergedFeatureOf(subject);
      return featureId ? [{ sha, featureId }] : [];
    });
}

/**
 * For each red check, the feature of the first merge (since the last green sweep) on which it is red, by binary
 * search: a probe replays the red checks on a clone checked out at that merge. None when it is green on the
 * last merge too (a later commit broke it) or no merge is left to blame.
 */
async function bisect(input: {
  context: MergeContext;
  input: SweepInput;
  target: WorkspaceRepo;
  merges: QueueMerge[];
  red: RecordedCheck[];
}): Promise<Map<string, string>> {
  const { context, target, merges, red } = input;
  const culprits = new Map<string, string>();
  if (merges.length === 0) return culprits;
  const dir = path.join(context.dataDir, 'bisect', context.workerId, input.input.runId);
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.dirname(dir), { recursive: true });
  await runGit(target, ['clone', '-q', '--no-checkout', target.dir, dir], { cwd: path.dirname(dir) });
  const probeRepo: WorkspaceRepo = { ...target, dir, guard: undefined };
  const probes = new Map<number, Map<string, ReplayResult>>();
  const redAt = async (index: number, check: RecordedCheck) => {
    if (!probes.has(index)) {
      await runGit(probeRepo, ['checkout', '-q', '--detach', (merges[index] as QueueMerge).sha]);
      probes.set(index, await replayOnOneApp(input.input, probeRepo, context.browser, red));
    }
    return !probes.get(index)?.get(check.featureId)?.ok;
  };
  try {
    for (const check of red) {
      if (!(await redAt(merges.length - 1, check))) continue;
      let low = 0;
      let high = merges.length - 1;
      while (low < high) {
        const middle = Math.floor((low + high) / 2);
        if (await redAt(middle, check)) high = middle;
        else low = middle + 1;
      }
      culprits.set(check.featureId, (merges[low] as QueueMerge).featureId);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return culprits;
}

/** Each sent-back feature's feedback, committed on the run branch; the new head, or null when nothing was written. */
async function writeFeedback(
  target: WorkspaceRepo,
  runId: string,
  seq: number,
  sentBack: FullSweepResult['sentBack'],
): Promise<string | null> {
  const byFeature = sentBackByFeature(sentBack);
  for (const [featureId, entries] of byFeature)
    await writeWorkspaceFile(target.dir, feedbackPath(featureId), sweepFeedback(featureId, entries));
  return checkpoint(target, {
    role: 'merge',
    runId,
    session: seq,
    featureId: [...byFeature.keys()][0] as string,
    summary: 'feedback from the full sweep',
    paths: [...byFeature.keys()].map(feedbackPath),
  });
}

function sweepFeedback(featureId: string, entries: FullSweepResult['sentBack']): string {
  const others = entries.filter((entry) => entry.victim !== featureId);
  return [
    `# Feedback for ${featureId}: a full sweep found recorded checks red`,
    '',
    others.length > 0
      ? `${featureId} passed and merged, but its merge broke other features: the full sweep of the run branch replayed every recorded check, and these were green before ${featureId} merged and red from its merge on:`
      : `${featureId} passed, but its recorded check is red on the run branch now:`,
    '',
    ...entries.map((entry) => `- ${entry.victim}: ${entry.failure}`),
    '',
    `Make ${featureId} work without breaking those features, then commit.`,
    '',
  ].join('\n');
}
