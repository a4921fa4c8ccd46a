/**
 * Replay-first regression checks: before a regression session asks a model anything, every feature's recorded
 * check is replayed with playwright-core against a freshly started app. Green checks become `pass` verdicts at
 * zero tokens; only features whose check is red (or missing) go on to the LLM evaluator, told what failed.
 */
import path from 'node:path';
import { runsAlone } from '../checks/codegen.js';
import { describeExpectation, type RecordedCheck } from '../checks/format.js';
import type { ReplayResult } from '../checks/replay.js';
import { withReplayData } from '../checks/replay-data.js';
import { readCheckFile, readReplays, saveReplays } from '../checks/store.js';
import { moduleLogger } from '../core/log.js';
import { checkReplaysDir } from '../core/paths.js';
import { inSpan } from '../core/trace.js';
import type { Feature, VerdictRecord } from '../handoff/formats.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import type { BrowserSource } from './browser-source.js';
import { startFreshApp } from './fresh-app.js';
import { type ReplayListener, reportReplays } from './replay-tally.js';
import type { AppStartInput, SessionIdentity } from './session-box.js';
import { eachAtMost, replayContexts, SweepContexts } from './sweep-replays.js';

const log = moduleLogger('evaluation/check-sweep');

/** What the replays decided: passes recorded without a model, and the features an evaluator must look at. */
export interface ReplayFirstResult {
  passed: VerdictRecord[];
  /** Features to evaluate with the model, with the failed replay (`check vN failed at …`) when there was one. */
  toEvaluate: Array<{ feature: Feature; failure?: string }>;
}

/** What the replays of a regression session need: the app's start and the shared browser. */
export interface ReplayFirstInput extends SweepInput {
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

/** What a sweep needs: the app's start, and how many contexts replay at once (default: sized from the machine). */
export interface SweepInput extends AppStartInput {
  /** Contexts replaying at once on the shared app (default {@link replayContexts}: the machine's cores and memory). */
  replayContexts?: number;
  /** Told the sweep's results once they are final (the replay metrics). */
  onReplayed?: ReplayListener;
}

/**
 * Replays checks against one fresh app in contexts of the browser, each reused and cleared between checks, several
 * at once where the machine allows; a red one again on an app of its own before it counts. Keeps each result as
 * the feature's last replay (`by`), one file per feature (checks/store.ts). Checks that must have the app to themselves (a clean app,
 * or counting what the whole app holds) replay first, one after another, with no other replay running.
 */
export function replayOnOneApp(
  input: SweepInput,
  repo: WorkspaceRepo,
  browser: BrowserSource,
  checks: RecordedCheck[],
  by: 'sweep' | 'cli' = 'sweep',
): Promise<Map<string, ReplayResult>> {
  // Where it runs (a merge, a full sweep, a session, the CLI) is the parent span's to say.
  return inSpan('checks.replay', { 'nightshift.replay.checks': checks.length }, () =>
    sweepChecks(input, repo, browser, checks, by),
  );
}

/** The sweep itself: the shared app's replays, red ones again on apps of their own, the results kept. */
async function sweepChecks(
  input: SweepInput,
  repo: WorkspaceRepo,
  browser: BrowserSource,
  checks: RecordedCheck[],
  by: 'sweep' | 'cli',
): Promise<Map<string, ReplayResult>> {
  const results = new Map<string, ReplayResult>();
  const contexts = input.replayContexts ?? replayContexts();
  const sweep = { input, repo, browser, results };
  const { alone, together } = await sweepOrder(input, checks);
  await replayOnSharedApp(sweep, alone, together, contexts);
  // Checks share the sweep's app, so one may see another's data: a red one gets an app of its own before it counts.
  const red = [...alone, ...together].filter((check) => !results.get(check.featureId)?.ok);
  await eachAtMost(red, contexts, (check) => replayOnApp(sweep, `sweep-${check.featureId}`, [check], true));
  const at = new Date((input.clock ?? Date.now)()).toISOString();
  await saveReplays(input.dataDir, input.runId, [...results.values()], { by, at }).catch((error) =>
    log.warn({ err: error }, 'could not keep the replay results'),
  );
  await reportReplays(input.onReplayed, [...results.values()]);
  return results;
}

/** One sweep: where it replays and where its results go. */
interface Sweep {
  input: AppStartInput;
  repo: WorkspaceRepo;
  browser: BrowserSource;
  results: Map<string, ReplayResult>;
}

/** The shared app's replays: the `alone` checks one after another, then the others `contexts` at once. */
async function replayOnSharedApp(
  sweep: Sweep,
  alone: RecordedCheck[],
  together: RecordedCheck[],
  contexts: number,
): Promise<void> {
  // On the shared app each replay types data of its own.
  const tokens = new Map([...alone, ...together].map((check, index) => [check, replayToken(index)]));
  const own = (check: RecordedCheck) => withReplayData(check, tokens.get(check) as string);
  await replayOnApp(sweep, 'sweep', [...alone, ...together], false, async (replay) => {
    for (const check of alone) await replay(own(check), 0);
    await eachAtMost(together, contexts, (check, slot) => replay(own(check), slot));
  });
}

/**
 * Starts a fresh app and replays `list` on it, one after another (or as `run` schedules them); `list` is red when
 * the app does not start.
 */
async function replayOnApp(
  sweep: Sweep,
  label: string,
  list: RecordedCheck[],
  ownApp: boolean,
  run?: (replay: (check: RecordedCheck, slot: number) => Promise<void>) => Promise<void>,
): Promise<void> {
  const { input, results } = sweep;
  const replaysDir = checkReplaysDir(input.dataDir, input.runId);
  const screenshotDir = path.join(replaysDir, 'screenshots');
  const started = await startFreshApp(input, sweep.repo, label);
  if (!started.ok) {
    for (const check of list) results.set(check.featureId, appDidNotStart(check, started.reason));
    return;
  }
  const contexts = new SweepContexts(sweep.browser, started.app.url, replaysDir);
  const replay = async (check: RecordedCheck, slot: number) => {
    const result = await contexts.at(slot).replay(check, { screenshotDir });
    results.set(check.featureId, ownApp ? { ...result, ownApp } : result);
  };
  try {
    if (run) await run(replay);
    else for (const check of list) await replay(check, 0);
  } finally {
    await contexts.close();
    await started.app.stop();
  }
}

/**
 * The sweep's checks in two groups. `alone`: those that hold on a clean app only (found by earlier sweeps) first
 * (the first replay of a sweep meets the app as fresh as an app of its own, so one such check needs no second
 * app), then those that count what the whole app holds or act on every check's data (`runsAlone`: another
 * replay's data arriving meanwhile would change what they see). `together`: the rest, which may replay at once.
 */
async function sweepOrder(
  input: AppStartInput,
  checks: RecordedCheck[],
): Promise<{ alone: RecordedCheck[]; together: RecordedCheck[] }> {
  const last = await readReplays(input.dataDir, input.runId);
  const needs = (check: RecordedCheck) =>
    last[check.featureId]?.needsCleanApp === true && last[check.featureId]?.version === check.version;
  const rest = checks.filter((check) => !needs(check));
  return {
    alone: [...checks.filter(needs), ...rest.filter((check) => runsAlone(check) !== undefined)],
    together: rest.filter((check) => runsAlone(check) === undefined),
  };
}

/** A suffix unique to a replay of the sweep, none a prefix of another (`r007`). */
function replayToken(index: number): string {
  return `r${index.toString(36).padStart(3, '0')}`;
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
