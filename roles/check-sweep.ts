/**
 * Replay-first regression checks: before a regression session asks a model anything, every feature's recorded
 * check is replayed with playwright-core against a freshly started app. Green checks become `pass` verdicts at
 * zero tokens; only features whose check is red (or missing) go on to the LLM evaluator, told what failed.
 */
import path from 'node:path';
import { describeExpectation, type RecordedCheck } from '../checks/format.js';
import { type ReplayResult, replayInContext } from '../checks/replay.js';
import { readCheckFile, saveReplay } from '../checks/store.js';
import { moduleLogger } from '../core/log.js';
import { checkReplaysDir } from '../core/paths.js';
import type { Feature, VerdictRecord } from '../handoff/formats.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import { startFreshApp } from './fresh-app.js';
import type { AppStartInput } from './sandbox.js';
import type { BrowserSource, RoleSessionInput } from './types.js';

const log = moduleLogger('roles/check-sweep');

/** What the replays decided: passes recorded without a model, and the features an evaluator must look at. */
export interface ReplayFirstResult {
  passed: VerdictRecord[];
  /** Features to evaluate with the model, with the failed replay (`check vN failed at …`) when there was one. */
  toEvaluate: Array<{ feature: Feature; failure?: string }>;
}

/** Replays the features' checks (one fresh app for all; a red one again on an app of its own before it counts). */
export async function replayFirst(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  features: readonly Feature[],
): Promise<ReplayFirstResult> {
  const checks = new Map<string, RecordedCheck>();
  const toEvaluate: ReplayFirstResult['toEvaluate'] = [];
  for (const feature of features) {
    const file = await readCheckFile(repo.dir, feature.id).catch((error: Error) => {
      toEvaluate.push({ feature, failure: `its check file is unreadable (${error.message})` });
      return undefined;
    });
    if (file) checks.set(feature.id, file.current);
    else if (file === null) toEvaluate.push({ feature });
  }
  if (checks.size === 0 || !input.browser) {
    for (const feature of features) if (checks.has(feature.id)) toEvaluate.push({ feature });
    return { passed: [], toEvaluate };
  }
  const results = await replayOnOneApp(input, repo, input.browser, [...checks.values()]);
  const passed: VerdictRecord[] = [];
  for (const feature of features) {
    const check = checks.get(feature.id);
    const result = results.get(feature.id);
    if (!check || !result) continue;
    if (result.ok) passed.push(replayVerdict(input, check, result));
    else toEvaluate.push({ feature, failure: failureText(check, result) });
  }
  return { passed, toEvaluate };
}

/**
 * Replays checks against one fresh app; a red one again on an app of its own before it counts. Keeps each
 * result as the feature's last replay (`by`).
 */
export async function replayOnOneApp(
  input: AppStartInput,
  repo: WorkspaceRepo,
  browser: BrowserSource,
  checks: RecordedCheck[],
  by: 'sweep' | 'cli' = 'sweep',
): Promise<Map<string, ReplayResult>> {
  const results = new Map<string, ReplayResult>();
  const screenshotDir = path.join(checkReplaysDir(input.dataDir, input.runId), 'screenshots');
  const replayOn = async (label: string, list: RecordedCheck[]) => {
    const started = await startFreshApp(input, repo, label);
    if (!started.ok) {
      for (const check of list) results.set(check.featureId, appDidNotStart(check, started.reason));
      return;
    }
    try {
      for (const check of list) {
        results.set(
          check.featureId,
          await replayGated(
            browser,
            check,
            { baseUrl: started.app.url, screenshotDir },
            input.dataDir,
            input.runId,
          ),
        );
      }
    } finally {
      await started.app.stop();
    }
  };
  await replayOn('sweep', checks);
  // Checks share the sweep's app, so one may see another's data: a red one gets an app of its own before it counts.
  for (const check of checks.filter((c) => !results.get(c.featureId)?.ok)) {
    await replayOn(`sweep-${check.featureId}`, [check]);
  }
  const at = new Date((input.clock ?? Date.now)()).toISOString();
  for (const result of results.values()) {
    await saveReplay(input.dataDir, input.runId, result, { by, at }).catch((error) =>
      log.warn({ err: error }, 'could not keep the replay result'),
    );
  }
  return results;
}

/** A replay in a fresh context of the pool, behind its gate: the context reaches the replay app's origin only. */
async function replayGated(
  browser: BrowserSource,
  check: RecordedCheck,
  options: { baseUrl: string; screenshotDir: string },
  dataDir: string,
  runId: string,
): Promise<ReplayResult> {
  const context = await browser.acquireContext({
    evidenceDir: checkReplaysDir(dataDir, runId),
    trace: false,
  });
  context.allowOrigin(options.baseUrl);
  try {
    return await replayInContext(context.page.context(), check, options);
  } finally {
    await context.close().catch(() => undefined);
  }
}

function appDidNotStart(check: RecordedCheck, reason: string): ReplayResult {
  return {
    featureId: check.featureId,
    version: check.version,
    ok: false,
    durationMs: 0,
    failure: { stage: 'action', index: 0, description: 'start the app', message: reason },
  };
}

/** `recorded check v2 failed at expectation 3: text "Buy milk" is visible (no visible element shows this text)`. */
export function failureText(check: RecordedCheck, result: ReplayResult): string {
  const failure = result.failure;
  if (!failure) return `recorded check v${check.version} failed`;
  return `recorded check v${check.version} failed at ${failure.stage} ${failure.index + 1}: ${failure.description} (${failure.message})`;
}

/** The regression verdict of a green replay: every expectation as a step, no model involved. */
function replayVerdict(input: RoleSessionInput, check: RecordedCheck, result: ReplayResult): VerdictRecord {
  const evidence = `Replayed recorded check v${check.version} in a fresh browser against a freshly started app: it holds (${Math.round(result.durationMs)} ms, no model request).`;
  return {
    featureId: check.featureId,
    verdict: 'pass',
    steps: check.expectations.map((expectation) => ({
      step: describeExpectation(expectation),
      ok: true,
      evidence,
    })),
    issues: [],
    mode: 'regression',
    runId: input.runId,
    session: input.session,
    at: new Date((input.clock ?? Date.now)()).toISOString(),
    evidence: result.screenshot ? [result.screenshot] : [],
  };
}
