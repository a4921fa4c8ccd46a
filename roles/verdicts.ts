import { readFeatureList, writeFeatureList } from '../handoff/feature-list.js';
import { feedbackPath, writeFeedback } from '../handoff/feedback.js';
import type { SubmittedVerdict, VerdictRecord } from '../handoff/formats.js';
import { checkpoint, type WorkspaceRepo } from '../handoff/git.js';
import { removeWorkspaceFile } from '../handoff/safe-fs.js';
import { appendVerdict } from '../handoff/verdicts.js';

/** Where an evaluation happened, for the records. */
export interface VerdictContext {
  runId: string;
  session: number;
  mode: 'evaluate' | 'regression';
  at: string;
  /** Evidence files, relative to the data dir. */
  evidence: string[];
}

/** Turns what the evaluator submitted (or did not) into the record the harness keeps. */
export function toVerdictRecord(
  featureId: string,
  submitted: SubmittedVerdict | undefined,
  context: VerdictContext,
  blockedReason?: string,
): VerdictRecord {
  if (!submitted || blockedReason) {
    return {
      featureId,
      verdict: 'blocked',
      steps: submitted?.steps ?? [],
      issues: submitted?.issues ?? [],
      reason: blockedReason ?? 'the evaluator ended without submitting a verdict',
      ...context,
    };
  }
  return {
    featureId,
    verdict: submitted.verdict,
    steps: submitted.steps,
    issues: submitted.issues,
    ...context,
  };
}

/**
 * Applies verdicts to the workspace — the only place `passes` changes: `pass` flips it to true and clears
 * old feedback; `fail` writes the feedback file (and in regression mode flips a passing feature back);
 * `blocked` changes nothing but the record, except that an evaluation the app did not start for writes the
 * feedback file too (exit code and log tail). Every evaluation is appended to `verdicts.jsonl`; one harness
 * commit records it all. Returns the commit sha (null when nothing changed).
 */
export async function applyVerdicts(
  repo: WorkspaceRepo,
  records: readonly VerdictRecord[],
): Promise<string | null> {
  if (records.length === 0) return null;
  const features = await readFeatureList(repo.dir);
  const byId = new Map(features.map((feature) => [feature.id, feature]));
  for (const record of records) {
    const feature = byId.get(record.featureId);
    if (!feature) continue;
    if (record.verdict === 'pass') {
      feature.passes = true;
      // Never through a linked `.nightshift/`: a refused removal leaves the old feedback, which is harmless.
      await removeWorkspaceFile(repo.dir, feedbackPath(record.featureId)).catch(() => false);
    } else if (record.verdict === 'fail') {
      feature.passes = false;
      await writeFeedback(repo.dir, record);
    } else if (record.appStart && record.mode === 'evaluate') {
      // The app did not start: the next session is a generator on this feature, and this is what it must fix.
      await writeFeedback(repo.dir, record);
    }
    await appendVerdict(repo.dir, record);
  }
  await writeFeatureList(repo.dir, features);
  const first = records[0] as VerdictRecord;
  const summary = records.map((record) => `${record.featureId} ${record.verdict}`).join(', ');
  return checkpoint(repo, {
    role: 'harness',
    runId: first.runId,
    session: first.session,
    ...(records.length === 1 ? { featureId: first.featureId } : {}),
    summary: `verdict: ${summary}`,
  });
}
