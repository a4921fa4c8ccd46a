import path from 'node:path';
import type { Page } from 'playwright-core';
import type { AgentResult } from '../agent/loop.js';
import { createBrowserToolSet } from '../agent/tools/browser.js';
import { ObservationLog } from '../agent/tools/browser-log.js';
import { createFileTools } from '../agent/tools/index.js';
import { checkReplaysDir, sessionEvidenceDir } from '../core/paths.js';
import type { BrowserSource } from '../evaluation/browser-source.js';
import { CheckGate, freshReplay } from '../evaluation/check-gate.js';
import { replayFirst } from '../evaluation/check-sweep.js';
import { appsAhead, type FreshAppResult, startFreshApp } from '../evaluation/fresh-app.js';
import { keptReplayContexts } from '../evaluation/kept-replay-contexts.js';
import { type ReplayListener, type ReplaySite, tallyReplays } from '../evaluation/replay-tally.js';
import { browserBlockedEvents } from '../evaluation/session-box.js';
import type { RunningApp } from '../handoff/app-runner.js';
import { readFeatureList } from '../handoff/feature-list.js';
import { type AppStartFailure, type Feature, WORKSPACE_FILES } from '../handoff/formats.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import { type AskedQuestion, commitQuestionsFile } from './ask-human.js';
import { evaluatorAsides, evaluatorAsking } from './evaluator-asks.js';
import {
  type EvaluationContext,
  type FirstReplays,
  judgedVerdicts,
  type OpenEvaluation,
  verdictContext,
} from './evaluator-verdicts.js';
import { evaluatorMessage } from './orientation.js';
import {
  type LoopEnding,
  outcomeOfInterruptedLoop,
  type PreparedSession,
  type RoleFinish,
} from './prepared-session.js';
import { rolePrompt } from './prompt-files.js';
import { createSubmitVerdictTool, VerdictCollector } from './submit-verdict.js';
import type { RoleSessionInput } from './types.js';
import { toVerdictRecord } from './verdicts.js';

/** The evaluator reads files but writes nothing. */
export const EVALUATOR_PROTECTED_PATHS = [
  '.',
  WORKSPACE_FILES.featureList,
  WORKSPACE_FILES.harnessDir,
  '.git',
];

/** The generator's own claims: the evaluator judges the running app, not what the generator says it did. */
export const EVALUATOR_UNREADABLE_PATHS = [
  WORKSPACE_FILES.progress,
  WORKSPACE_FILES.quickstartProgress,
  WORKSPACE_FILES.feedbackDir,
].map((file) => ({
  path: file,
  reason: "it holds the generator's own claims; judge the feature only by what the running app shows you.",
}));

/** Loop outcomes after which a missing verdict means the check did not run to the end (recorded `blocked`). */
const BLOCKING_OUTCOMES = new Set<AgentResult['outcome']>([
  'completed',
  'step_limit',
  'time_limit',
  'ended_by_hook',
  'context_overflow',
]);

/**
 * Prepares an evaluator session: the harness starts the app and a fresh browser context; the model gets
 * read-only file tools, the browser tools and `submit_verdict`. An app that does not come up, or a browser
 * that cannot be had, ends the session at once with `blocked` verdicts and the reason — never a pass.
 */
export async function prepareEvaluator(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
): Promise<PreparedSession | RoleFinish> {
  const mode = input.mode ?? 'evaluate';
  const features = await featuresUnderEvaluation(repo, input.featureIds);
  if (features.length !== input.featureIds.length)
    return blockAll(input, mode, 'a feature under evaluation is not in feature_list.json');
  if (!input.browser) return blockAll(input, mode, 'no browser is available to this worker');
  const browser = input.browser;
  const first = await replayChecksFirst(input, repo, features, mode);
  if (first.open.length === 0) return { outcome: 'completed', verdicts: first.replayed };
  const evidenceDir = sessionEvidenceDir(input.dataDir, input.runId, input.session);
  const started = await startAppAndBrowser(input, repo, browser, evidenceDir);
  if (!started.ok) return blockAll(input, mode, started.reason, started.appStart);
  const { app, context } = started;
  return evaluationSession({ input, repo, browser, mode, features, first, app, context, evidenceDir });
}

/** Ends the session before the model: every feature `blocked` for the reason (with the app's failure to start). */
function blockAll(
  input: RoleSessionInput,
  mode: OpenEvaluation['mode'],
  reason: string,
  appStart?: AppStartFailure,
): RoleFinish {
  return {
    outcome: 'blocked',
    reason,
    verdicts: input.featureIds.map((id) => ({
      ...toVerdictRecord(id, undefined, verdictContext(input, mode, []), reason),
      ...(appStart ? { appStart } : {}),
    })),
    ...(appStart ? { appStart } : {}),
  };
}

/** A regression check replays recorded checks first: only features whose check is red (or missing) reach the model. */
async function replayChecksFirst(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  features: Feature[],
  mode: OpenEvaluation['mode'],
): Promise<FirstReplays> {
  if (mode !== 'regression') return { replayed: [], failures: new Map(), open: features };
  const first = await replayFirst({ ...input, onReplayed: replayNotices(input, 'sweep') }, repo, features);
  return {
    replayed: first.passed,
    failures: new Map(
      first.toEvaluate.flatMap(({ feature, failure }) => (failure ? [[feature.id, failure]] : [])),
    ),
    open: first.toEvaluate.map((item) => item.feature),
  };
}

/**
 * Starts the app and the browser context side by side: both take a second or two, and neither needs the other.
 * When one fails the other is let go. No base URL is given to the context, so the pool's pre-opened spare context
 * fits every evaluation (the app's port differs each time; the browser tools resolve relative URLs against the
 * allowed origin themselves).
 */
async function startAppAndBrowser(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  browser: BrowserSource,
  evidenceDir: string,
): Promise<
  | { ok: true; app: RunningApp; context: EvaluationContext }
  | { ok: false; reason: string; appStart?: AppStartFailure }
> {
  const [started, acquired] = await Promise.all([
    startFreshApp(input, repo, 'evaluation'),
    browser.acquireContext({ evidenceDir, trace: true, onBlocked: browserBlockedEvents(input) }).then(
      (context) => ({ ok: true as const, context }),
      (error: unknown) => ({ ok: false as const, error: error as Error }),
    ),
  ]);
  if (!started.ok) {
    if (acquired.ok) await acquired.context.close();
    input.onNotice?.({ type: 'app.blocked', reason: started.reason });
    // Not the feature's fault alone, but only a generator can fix init.sh: the record carries the log tail.
    return { ok: false, reason: started.reason, ...(started.failure ? { appStart: started.failure } : {}) };
  }
  if (!acquired.ok) {
    await started.app.stop();
    return { ok: false, reason: `the browser could not be started: ${acquired.error.message}` };
  }
  // From here the context reaches the app and nothing else (every other request is refused and listed).
  acquired.context.allowOrigin(started.app.url);
  return { ok: true, app: started.app, context: acquired.context };
}

/** The model's session over the open features: its tools, the pass gate, the stop hook, release and closing. */
function evaluationSession(evaluation: OpenEvaluation): PreparedSession {
  const { input, app, context, first } = evaluation;
  const observations = new ObservationLog(input.clock ?? Date.now);
  const openIds = first.open.map((feature) => feature.id);
  const collector = new VerdictCollector(openIds, {
    features: first.open,
    observations: () => observations.entries(),
    onUngrounded: (featureId, failure, final) =>
      input.onNotice?.({ type: 'verdict.ungrounded', featureId, ...failure, final }),
  });
  const browserTools = createBrowserToolSet({
    page: context.page,
    evidenceDir: evaluation.evidenceDir,
    consoleMessages: () => context.consoleMessages,
    allowedOrigins: [app.url],
    observations,
  });
  const replayApps = appsAhead((index) => startFreshApp(input, evaluation.repo, `replay-${index}`));
  const gate = passGate(evaluation, browserTools.currentPage, observations, () => replayApps.take());
  const closing = closeOnce(evaluation, () => replayApps.dispose());
  const asking = evaluatorAsking(input, evaluation.mode, collector);
  return {
    system: rolePrompt('evaluator'),
    firstMessage: evaluatorMessage({
      appUrl: app.url,
      features: first.open,
      mode: evaluation.mode,
      failures: first.failures,
      asides: evaluatorAsides(input, first.open),
    }),
    tools: [
      ...createFileTools({ readOnly: true }),
      ...browserTools.tools,
      createSubmitVerdictTool(collector, (verdict) => gate.review(verdict)),
      ...asking.tools,
    ],
    protectedPaths: EVALUATOR_PROTECTED_PATHS,
    unreadablePaths: EVALUATOR_UNREADABLE_PATHS,
    featureListRules: { mayChangePasses: false, mayCreate: false },
    hooks: {
      // The last verdict in, the session is over: the model's closing words would cost a request and change nothing.
      beforeTurn: async (state) => {
        const decision = (await asking.beforeTurn?.(state)) ?? {};
        return collector.missing().length === 0 && !decision.end ? { ...decision, done: true } : decision;
      },
      beforeStop: () => {
        const missing = asking.asked.question ? [] : collector.missing();
        return missing.length
          ? {
              stop: false,
              message: `Submit a verdict (submit_verdict) for: ${missing.join(', ')}. Then stop.`,
            }
          : { stop: true };
      },
    },
    release: closing.release,
    finish: async (result, ending = {}) => {
      await closing.release();
      const judged = { collector, gate, evidence: closing.evidence(), asked: asking.asked };
      return finishEvaluation(evaluation, judged, result, ending);
    },
  };
}

/** The gate a submitted pass goes through: its check recorded, then replayed on a fresh app in a clean context. */
function passGate(
  evaluation: OpenEvaluation,
  page: () => Page,
  observations: ObservationLog,
  startApp: () => Promise<FreshAppResult>,
): CheckGate {
  const { input, browser } = evaluation;
  const replaysDir = checkReplaysDir(input.dataDir, input.runId);
  return new CheckGate({
    ...input,
    clock: input.clock ?? Date.now,
    workspace: evaluation.repo.dir,
    features: evaluation.features,
    reason: evaluation.mode === 'regression' ? 'rerecord' : 'evaluate',
    page,
    appUrl: evaluation.app.url,
    observations,
    onReplayed: replayNotices(input, 'gate'),
    replay: freshReplay({
      startApp,
      lendContext: (baseUrl) =>
        keptReplayContexts(browser).lend(baseUrl, {
          evidenceDir: replaysDir,
          onBlocked: browserBlockedEvents(input),
        }),
      screenshotDir: path.join(replaysDir, 'screenshots'),
    }),
  });
}

/** Reports the evaluation's replays as harness notices (the worker logs them for the replay metrics). */
function replayNotices(input: RoleSessionInput, where: ReplaySite): ReplayListener {
  return (results) => input.onNotice?.({ type: 'check.replayed', ...tallyReplays(where, results) });
}

/** Closes the context and stops the apps once, however often asked; the context's files become the evidence. */
function closeOnce(
  evaluation: OpenEvaluation,
  disposeReplayApps: () => Promise<void>,
): { release: () => Promise<void>; evidence: () => string[] } {
  let evidence: string[] = [];
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    const left = await evaluation.context.close();
    evidence = [...left.screenshots, ...(left.tracePath ? [left.tracePath] : [])].map((file) =>
      path.relative(evaluation.input.dataDir, file),
    );
    await Promise.all([evaluation.app.stop(), disposeReplayApps()]);
  };
  return { release, evidence: () => evidence };
}

/**
 * The session's verdicts after the loop: what was submitted (grounded and gated), `blocked` for a feature left
 * without one when the loop ran to an end, nothing more when the run interrupted it or it asked a person (the
 * feature waits for the answer, checkpointed); the replays' passes first.
 */
async function finishEvaluation(
  evaluation: OpenEvaluation,
  judged: { collector: VerdictCollector; gate: CheckGate; evidence: string[]; asked: AskedQuestion },
  result: AgentResult,
  ending: LoopEnding,
): Promise<RoleFinish> {
  const { replayed } = evaluation.first;
  // Stopped by the run (a pause, a cancel, a budget) or aborted: the evaluation was interrupted, not judged.
  const interrupted = ending.stoppedByRun !== undefined || result.outcome === 'aborted';
  const asked = judged.asked.question;
  const blockedReason =
    !interrupted && !asked && BLOCKING_OUTCOMES.has(result.outcome)
      ? `the evaluator ended (${result.outcome}) without submitting a verdict`
      : undefined;
  const verdicts = judgedVerdicts(evaluation, judged, blockedReason);
  await judged.gate.write();
  // The questions (the one just asked, answers given so far) go into the history, as a generator's session does.
  await commitQuestionsFile(evaluation.input, evaluation.repo, judged.asked);
  if (interrupted) {
    return {
      outcome: 'aborted',
      reason: `interrupted, not judged: ${ending.stoppedByRun ?? result.reason ?? 'aborted'}`,
      verdicts: [...replayed, ...verdicts],
    };
  }
  if (asked) {
    const reason = result.reason ?? `asked a person (${asked.id})`;
    return { outcome: 'checkpointed', reason, verdicts: [...replayed, ...verdicts], askedQuestion: asked.id };
  }
  const outcome = outcomeOfInterruptedLoop(result, 'blocked') ?? 'completed';
  return {
    outcome,
    ...(result.reason ? { reason: result.reason } : {}),
    verdicts: [...replayed, ...verdicts],
  };
}

async function featuresUnderEvaluation(repo: WorkspaceRepo, ids: readonly string[]): Promise<Feature[]> {
  const features = await readFeatureList(repo.dir);
  return ids
    .map((id) => features.find((feature) => feature.id === id))
    .filter((f): f is Feature => Boolean(f));
}
