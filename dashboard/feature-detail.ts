import path from 'node:path';
import { readFeedback } from '../handoff/feedback.js';
import type { VerdictRecord } from '../handoff/formats.js';
import { readVerdicts } from '../handoff/verdicts.js';
import type { RunRecord, RunStore } from '../orchestrator/run/index.js';
import type { EvidenceView, FeatureDetailResponse, VerdictHistoryEntry } from './api-types.js';
import { evidenceUrlPath } from './paths.js';
import { retryView } from './retry.js';
import { steeringView } from './steering.js';
import { toFeatureView } from './views.js';

const IMAGE = /\.(png|jpe?g|webp|gif)$/i;

/** How an evidence file is shown: an image, a Playwright trace download, or another download. */
export function evidenceKind(name: string): EvidenceView['kind'] {
  if (IMAGE.test(name)) return 'image';
  return /\.zip$/i.test(name) ? 'trace' : 'file';
}

function toEvidence(runId: string, recorded: string): EvidenceView | null {
  const relative = evidenceUrlPath(runId, recorded);
  if (relative === null) return null;
  const url = `/api/runs/${encodeURIComponent(runId)}/evidence/${relative.split('/').map(encodeURIComponent).join('/')}`;
  return { name: path.posix.basename(relative), url, kind: evidenceKind(relative) };
}

function historyEntry(runId: string, record: VerdictRecord): VerdictHistoryEntry {
  return {
    session: record.session,
    at: record.at,
    verdict: record.verdict,
    mode: record.mode,
    steps: record.steps,
    issues: record.issues,
    reason: record.reason ?? null,
    ungrounded: record.ungrounded ?? [],
    evidence: record.evidence
      .map((file) => toEvidence(runId, file))
      .filter((e): e is EvidenceView => e !== null),
  };
}

/**
 * Verdict history of a feature, newest first. A local workspace has the full records (steps, issues, evidence) in
 * `.nightshift/verdicts.jsonl`; otherwise the event log's `verdict.applied` entries give the verdicts alone.
 */
async function verdictHistory(
  store: RunStore,
  run: RunRecord,
  featureId: string,
): Promise<VerdictHistoryEntry[]> {
  if (run.workspace.kind === 'local') {
    const { records } = await readVerdicts(run.workspace.path).catch(() => ({
      records: [] as VerdictRecord[],
    }));
    const mine = records.filter((r) => r.featureId === featureId && r.runId === run.id);
    if (mine.length > 0) return mine.reverse().map((record) => historyEntry(run.id, record));
  }
  const events = await store.readEvents(run.id, { latest: true, count: 10_000 });
  const entries: VerdictHistoryEntry[] = [];
  for (const { event } of events) {
    if (event.type !== 'verdict.applied' || event.featureId !== featureId) continue;
    entries.push({
      session: event.seq,
      at: event.at,
      verdict: event.verdict,
      mode: event.mode,
      steps: [],
      issues: [],
      reason: null,
      evidence: [],
      ungrounded: [],
    });
  }
  return entries.reverse();
}

/** Everything the feature panel shows, or null when the run has no such feature. */
export async function featureDetail(
  store: RunStore,
  run: RunRecord,
  featureId: string,
): Promise<FeatureDetailResponse | null> {
  const feature = (await store.listFeatures(run.id)).find((f) => f.id === featureId);
  if (!feature) return null;
  const [verdicts, feedback] = await Promise.all([
    verdictHistory(store, run, featureId),
    run.workspace.kind === 'local'
      ? readFeedback(run.workspace.path, featureId).catch(() => null)
      : Promise.resolve(null),
  ]);
  return {
    feature: { ...toFeatureView(feature), steps: feature.steps },
    retry: retryView(run, feature),
    feedback,
    verdicts,
    steering: steeringView(run, feature),
  };
}
