/**
 * Replay-first regression checks: before a regression session asks a model anything, every feature's recorded
 * check is replayed with playwright-core against a freshly started app. Green checks become `pass` verdicts at
 * zero tokens; only features whose check is red (or missing) go on to the LLM evaluator, told what failed.
 */
import path from 'node:path';
import { describeExpectation, type RecordedCheck } from '../checks/format.js';
import type { ReplayResult } from '../checks/replay.js';
import { ReplayContextResetError, ReusedReplayContext } from '../checks/replay-context.js';
import { withReplayData } from '../checks/replay-data.js';
import { readCheckFile, readReplays, saveReplays } from '../checks/store.js';
import { moduleLogger } from '../core/log.js';
import { checkReplaysDir } from '../core/paths.js';
import type { Feature, VerdictRecord } from '../handoff/formats.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import type { BrowserSource } from './browser-source.js';
import { startFreshApp } from './fresh-app.js';
import type { AppStartInput, SessionIdentity } from './session-box.js';

const log = moduleLogger('evaluation/check-sweep');

/** A context of the browser source. */
type SourceContext = Awaited<ReturnType<BrowserSource['acquireContext']>>;

/** What the replays decided: passes recorded without a model, and the features an evaluator must look at. */
export interface ReplayFirstResult {
  passed: VerdictRecord[];
  /** Features to evaluate with the model, with the failed replay (`check vN failed at …`) when there was one. */
  toEvaluate: Array<{ feature: Feature; failure?: string }>;
}

/** What the replays of a regression session need: the app's start and the shared browser. */
export interface ReplayFirstInput extends AppStartInput {
  /** The shared browser; without one, nothing is replayed. */
  browser?: BrowserSource;
}

/** Replays the features' checks (one fresh app for all; a red one again on an app of its own before it counts). */
export async function replayFirst(
  input: ReplayFirstInput,
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
 * Replays checks against one fresh app, one after another in one browser context cleared between them; a red
 * one again on an app of its own before it counts. Keeps each result as the feature's last replay (`by`).
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
  const replayOn = async (label: string, list: RecordedCheck[], ownApp = false) => {
    const started = await startFreshApp(input, repo, label);
    if (!started.ok) {
      for (const check of list) results.set(check.featureId, appDidNotStart(check, started.reason));
      return;
    }
    const replays = new SweepReplays(browser, started.app.url, checkReplaysDir(input.dataDir, input.runId));
    try {
      for (const [index, check] of list.entries()) {
        // On the shared app each replay types data of its own; on an app of its own, what was recorded.
        const replayed = ownApp ? check : withReplayData(check, replayToken(index));
        const result = await replays.replay(replayed, { screenshotDir });
        results.set(check.featureId, ownApp ? { ...result, ownApp } : result);
      }
    } finally {
      await replays.close();
      await started.app.stop();
    }
  };
  await replayOn('sweep', await cleanAppFirst(input, checks));
  // Checks share the sweep's app, so one may see another's data: a red one gets an app of its own before it counts.
  for (const check of checks.filter((c) => !results.get(c.featureId)?.ok)) {
    await replayOn(`sweep-${check.featureId}`, [check], true);
  }
  const at = new Date((input.clock ?? Date.now)()).toISOString();
  await saveReplays(input.dataDir, input.runId, [...results.values()], { by, at }).catch((error) =>
    log.warn({ err: error }, 'could not keep the replay results'),
  );
  return results;
}

/**
 * The checks with those first that hold on a clean app only (found by earlier sweeps): the first replay of a
 * sweep meets the app as fresh as an app of its own, so one such check needs no second app.
 */
async function cleanAppFirst(input: AppStartInput, checks: RecordedCheck[]): Promise<RecordedCheck[]> {
  const last = await readReplays(input.dataDir, input.runId);
  const needs = (check: RecordedCheck) =>
    last[check.featureId]?.needsCleanApp === true && last[check.featureId]?.version === check.version;
  return [...checks.filter(needs), ...checks.filter((check) => !needs(check))];
}

/** A suffix unique to a replay of the sweep, none a prefix of another (`r007`). */
function replayToken(index: number): string {
  return `r${index.toString(36).padStart(3, '0')}`;
}

/**
 * The replays of one app: one context of the pool (behind its gate, reaching the app's origin only), reused and
 * cleared between checks; a new one when it cannot be cleared (a crash).
 */
class SweepReplays {
  private current: Promise<{ evaluation: SourceContext; reused: ReusedReplayContext }> | undefined;

  constructor(
    private readonly browser: BrowserSource,
    private readonly baseUrl: string,
    private readonly evidenceDir: string,
  ) {}

  async replay(check: RecordedCheck, options: { screenshotDir: string }): Promise<ReplayResult> {
    for (let attempt = 0; ; attempt += 1) {
      const { reused } = await this.context();
      try {
        return await reused.replay(check, options);
      } catch (error) {
        if (!(error instanceof ReplayContextResetError) || attempt >= 1) throw error;
        log.warn(
          { err: error, featureId: check.featureId },
          'replay context lost; a new one replays the rest',
        );
        await this.close();
      }
    }
  }

  async close(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    const opened = await current?.catch(() => undefined);
    await opened?.evaluation.close().catch(() => undefined);
  }

  private context() {
    this.current ??= this.browser
      .acquireContext({ evidenceDir: this.evidenceDir, trace: false })
      .then((evaluation) => {
        evaluation.allowOrigin(this.baseUrl);
        const reused = new ReusedReplayContext(evaluation.page.context(), this.baseUrl, evaluation.page);
        return { evaluation, reused };
      });
    const opened = this.current;
    opened.catch(() => {
      if (this.current === opened) this.current = undefined;
    });
    return opened;
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
function replayVerdict(input: SessionIdentity, check: RecordedCheck, result: ReplayResult): VerdictRecord {
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
