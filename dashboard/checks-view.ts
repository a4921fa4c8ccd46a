import { describeExpectation } from '../checks/format.js';
import { type ReplayRecord, readCheckFile, readReplays } from '../checks/store.js';
import { readFeatureList } from '../handoff/feature-list.js';
import type { RunRecord } from '../orchestrator/run-state.js';

/** One feature's recorded check and its last replay, as `GET /api/runs/:id/checks` returns it. */
export interface FeatureCheckView {
  featureId: string;
  check: {
    version: number;
    recordedAt: string;
    reason: string;
    actions: number;
    expectations: string[];
    flaky: { at: string; failure: string } | null;
    previousVersions: number[];
  } | null;
  /** Green/red, when, by whom, what failed; `screenshot` is relative to the data dir (served under /evidence). */
  lastReplay: ReplayRecord | null;
}

/** The checks of a run's features (a remote run's checks live in its repository: `local: false`, none listed). */
export async function checksView(
  run: RunRecord,
  dataDir: string,
): Promise<{ local: boolean; checks: FeatureCheckView[] }> {
  if (run.workspace.kind !== 'local') return { local: false, checks: [] };
  const workspace = run.workspace.path;
  const features = await readFeatureList(workspace).catch(() => []);
  const replays = await readReplays(dataDir, run.id);
  const checks: FeatureCheckView[] = [];
  for (const feature of features) {
    const file = await readCheckFile(workspace, feature.id).catch(() => null);
    checks.push({
      featureId: feature.id,
      check: file
        ? {
            version: file.current.version,
            recordedAt: file.current.recordedAt,
            reason: file.current.origin.reason,
            actions: file.current.actions.length,
            expectations: file.current.expectations.map(describeExpectation),
            flaky: file.flaky,
            previousVersions: file.history.map((check) => check.version),
          }
        : null,
      lastReplay: replays[feature.id] ?? null,
    });
  }
  return { local: true, checks };
}
