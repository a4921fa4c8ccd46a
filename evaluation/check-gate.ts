/**
 * The pass gate of recorded checks: when the evaluator submits a pass, the harness records its browser actions
 * and grounded expectations as a check and replays it in a clean browser context (new, or kept and cleared) against
 * a freshly started app before the pass is accepted. A red replay sends the pass back to the evaluator once (the check is then marked
 * flaky); red again, the verdict becomes `blocked`: a pass nobody can reproduce does not count.
 */
import type { Page } from 'playwright-core';
import type { ObservationLog } from '../agent/tools/browser-log.js';
import {
  type CheckFile,
  type RecordedCheck,
  RecordedCheck as RecordedCheckSchema,
} from '../checks/format.js';
import { confirmedExpectations, countedFromBaseline, recordSegment } from '../checks/recorder.js';
import type { ReplayResult } from '../checks/replay.js';
import { ReplayContextResetError } from '../checks/replay-context.js';
import { nextCheckVersion, saveReplay, writeCheck } from '../checks/store.js';
import { moduleLogger } from '../core/log.js';
import { inSpan } from '../core/trace.js';
import type { Feature, SubmittedVerdict } from '../handoff/formats.js';
import type { LentReplayContext } from './kept-replay-contexts.js';
import { type ReplayListener, reportReplays } from './replay-tally.js';

const log = moduleLogger('evaluation/check-gate');

/** Replays a check in a clean browser context against a freshly started app (the evaluator wires the app and browser). */
export type FreshReplay = (check: RecordedCheck) => Promise<ReplayResult>;

/** What the gate needs from the evaluation. */
export interface CheckGateInput {
  runId: string;
  session: number;
  dataDir: string;
  workspace: string;
  features: readonly Feature[];
  /** `rerecord` when the features' old checks went red in a sweep. */
  reason: 'evaluate' | 'rerecord';
  /**
   * The evaluator's current tab (expectations are confirmed on it: a replay ends on the tab the recorded actions
   * end on, a popup after a click that opened one) and the app URL it used.
   */
  page: () => Page;
  appUrl: string;
  observations: ObservationLog;
  replay: FreshReplay;
  /** Told each replay's result (the replay metrics). */
  onReplayed?: ReplayListener;
  clock: () => number;
}

/** The gate's answer: the verdict to record (maybe turned `blocked`), or a refusal sent back to the model. */
export type GateDecision = { accept: SubmittedVerdict } | { refuse: string };

/** Records and replays checks of passes during one evaluator session; `write` puts them in the workspace. */
export class CheckGate {
  private readonly ready = new Map<string, { check: RecordedCheck; flaky: CheckFile['flaky'] }>();
  private readonly firstFailure = new Map<string, string>();
  /** Passes accepted without a check, and why (nothing replayable was recorded). */
  readonly unrecorded = new Map<string, string>();

  constructor(private readonly input: CheckGateInput) {}

  /** Decides on a submitted verdict (call after the collector's own validation). */
  async review(verdict: SubmittedVerdict): Promise<GateDecision> {
    const entries = this.input.observations.entries();
    // From the session's first action: a feature checked after others in one session saw the app in the state
    // those left it in, so its check replays them all to start a fresh app from the same state.
    const segment = recordSegment(entries, 0, this.input.appUrl);
    if (verdict.verdict !== 'pass') return { accept: verdict };
    const id = verdict.feature_id;
    const evidence = verdict.steps.filter((step) => step.ok).map((step) => step.evidence);
    const confirmed = await confirmedExpectations(
      this.input.page(),
      evidence,
      segment.typed,
      this.input.appUrl,
    );
    // Counts relative to what the check saw itself: the check holds whatever data others left in the app.
    const expectations = countedFromBaseline(confirmed, entries, segment);
    const why =
      segment.unrecordable ??
      (expectations.length === 0 ? 'no quoted evidence was confirmed on the page' : undefined);
    if (why) {
      this.unrecorded.set(id, why);
      log.info({ featureId: id, why }, 'pass without a recorded check');
      return { accept: verdict };
    }
    const check = RecordedCheckSchema.parse({
      featureId: id,
      version: await nextCheckVersion(this.input.workspace, id),
      recordedAt: new Date(this.input.clock()).toISOString(),
      origin: { runId: this.input.runId, session: this.input.session, reason: this.input.reason },
      actions: segment.actions,
      expectations,
    });
    const result = await this.input.replay(check);
    await saveReplay(this.input.dataDir, this.input.runId, result, {
      by: 'gate',
      at: new Date(this.input.clock()).toISOString(),
    }).catch((error) => log.warn({ err: error }, 'could not keep the replay result'));
    await reportReplays(this.input.onReplayed, [result]);
    return this.decide(verdict, check, result);
  }

  private decide(verdict: SubmittedVerdict, check: RecordedCheck, result: ReplayResult): GateDecision {
    const id = verdict.feature_id;
    const failure = result.failure ? `${result.failure.description}: ${result.failure.message}` : undefined;
    const earlier = this.firstFailure.get(id);
    if (!failure) {
      const flaky = earlier ? { at: new Date(this.input.clock()).toISOString(), failure: earlier } : null;
      this.ready.set(id, { check, flaky });
      return { accept: verdict };
    }
    if (!earlier) {
      this.firstFailure.set(id, failure);
      return {
        refuse:
          `Your pass of ${id} was recorded as a check, but replaying it in a clean browser against a freshly started app failed at ${result.failure?.stage} ${(result.failure?.index ?? 0) + 1}: ${failure}. ` +
          'Check the feature again from the start (it must work on a freshly started app) and submit your verdict again.',
      };
    }
    const issue = `The pass could not be reproduced: its recorded check failed twice on a freshly started app (${failure}).`;
    return { accept: { ...verdict, verdict: 'blocked', issues: [...verdict.issues, issue] } };
  }

  /** Writes the accepted checks and their specs into the workspace (committed with the verdicts). */
  async write(): Promise<string[]> {
    const written: string[] = [];
    for (const [id, { check, flaky }] of this.ready) {
      const title = this.input.features.find((feature) => feature.id === id)?.description ?? id;
      written.push(...(await writeCheck(this.input.workspace, check, { title, flaky })));
    }
    return written;
  }
}

/** What a {@link freshReplay} starts apps and borrows contexts from. */
export interface FreshReplayDeps {
  startApp: () => Promise<
    { ok: true; app: { url: string; stop(): Promise<void> } } | { ok: false; reason: string }
  >;
  lendContext: (baseUrl: string) => Promise<LentReplayContext>;
  screenshotDir: string;
}

/**
 * A {@link FreshReplay} over an app starter and a source of replay contexts (a kept one, cleared of everything the
 * last app and replay left: as clean as a new context for this app, evaluation/kept-replay-contexts.ts).
 */
export function freshReplay(deps: FreshReplayDeps): FreshReplay {
  return (check) =>
    inSpan('checks.replay', { 'nightshift.replay.by': 'gate', 'nightshift.replay.checks': 1 }, () =>
      replayOnFreshApp(check, deps),
    );
}

/** Takes the fresh app, replays the check on it in a lent context, then stops the app. */
async function replayOnFreshApp(check: RecordedCheck, deps: FreshReplayDeps): Promise<ReplayResult> {
  const started = await deps.startApp();
  if (!started.ok) {
    return {
      featureId: check.featureId,
      version: check.version,
      ok: false,
      durationMs: 0,
      failure: { stage: 'action', index: 0, description: 'start the app', message: started.reason },
    };
  }
  try {
    return await replayInLent(check, started.app.url, deps);
  } finally {
    await started.app.stop();
  }
}

/** The replay in a lent context; in a second one when the first cannot be cleared (it crashed while kept). */
async function replayInLent(
  check: RecordedCheck,
  baseUrl: string,
  deps: { lendContext: (baseUrl: string) => Promise<LentReplayContext>; screenshotDir: string },
): Promise<ReplayResult> {
  for (let attempt = 0; ; attempt += 1) {
    const lent = await deps.lendContext(baseUrl);
    try {
      return await lent.replay(check, { screenshotDir: deps.screenshotDir });
    } catch (error) {
      if (!(error instanceof ReplayContextResetError) || attempt >= 1) throw error;
      log.warn(
        { err: error, featureId: check.featureId },
        'a kept replay context was lost; replaying in another',
      );
    } finally {
      await lent.release();
    }
  }
}
