import path from 'node:path';
import { specPath } from '../checks/codegen.js';
import { describeExpectation } from '../checks/format.js';
import { checkFilePath, type ReplayRecord, readCheckFile, readReplays } from '../checks/store.js';
import { readFeatureList } from '../handoff/feature-list.js';
import type { RunRecord } from '../orchestrator/run/index.js';

/** One feature's recorded check and its last replay, as `GET /api/runs/:id/checks` returns it. */
export interface FeatureCheckView {
  featureId: string;
  check: {
    version: number;
    /** The check file and its spec, relative to the workspace. */
    file: string;
    spec: string;
    recordedAt: string;
    reason: string;
    actions: number;
    expectations: string[];
    flaky: { at: string; failure: string } | null;
    previousVersions: number[];
  } | null;
  /** Green/red, when, by whom, what failed; `screenshot` is relative to the data dir (served under /evidence). */
  lastReplay: ReplayRecord | null;
  /** Where the dashboard serves the last replay's failure screenshot, when it left one. */
  screenshotUrl: string | null;
}

function screenshotUrl(runId: string, screenshot: string | undefined): string | null {
  if (!screenshot) return null;
  const name = path.basename(screenshot);
  return `/api/runs/${encodeURIComponent(runId)}/check-screenshots/${encodeURIComponent(name)}`;
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
            file: checkFilePath(feature.id),
            spec: specPath(feature.id),
            recordedAt: file.current.recordedAt,
            reason: file.current.origin.reason,
            actions: file.current.actions.length,
            expectations: file.current.expectations.map(describeExpectation),
            flaky: file.flaky,
            previousVersions: file.history.map((check) => check.version),
          }
        : null,
      lastReplay: replays[feature.id] ?? null,
      screenshotUrl: screenshotUrl(run.id, replays[feature.id]?.screenshot),
    });
  }
  return { local: true, checks };
}
