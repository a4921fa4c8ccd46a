import path from 'node:path';
import type { AgentResult } from '../agent/loop.js';
import { createBrowserToolSet } from '../agent/tools/browser.js';
import { ObservationLog } from '../agent/tools/browser-log.js';
import { createFileTools } from '../agent/tools/index.js';
import { checkReplaysDir, sessionEvidenceDir } from '../core/paths.js';
import { CheckGate, freshReplay } from '../evaluation/check-gate.js';
import { replayFirst } from '../evaluation/check-sweep.js';
import { appsAhead, startFreshApp } from '../evaluation/fresh-app.js';
import { browserBlockedEvents } from '../evaluation/session-box.js';
import type { RunningApp } from '../handoff/app-runner.js';
import { readFeatureList } from '../handoff/feature-list.js';
import {
  type AppStartFailure,
  type Feature,
  type VerdictRecord,
  WORKSPACE_FILES,
} from '../handoff/formats.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import { evaluatorMessage } from './orientation.js';
import { outcomeOfInterruptedLoop, type RoleFinish, type RolePlan } from './plan.js';
import { rolePrompt } from './prompt-files.js';
import { createSubmitVerdictTool, VerdictCollector } from './submit-verdict.js';
import type { RoleSessionInput } from './types.js';
import { toVerdictRecord, type VerdictContext } from './verdicts.js';

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
): Promise<RolePlan | RoleFinish> {
  const mode = input.mode ?? 'evaluate';
  const clock = input.clock ?? Date.now;
  const features = await featuresUnderEvaluation(repo, input.featureIds);
  const evidenceDir = sessionEvidenceDir(input.dataDir, input.runId, input.session);
  const context = (evidence: string[]): VerdictContext => ({
    runId: input.runId,
    session: input.session,
    mode,
    at: new Date(clock()).toISOString(),
    evidence,
  });
  const blockAll = (reason: string, appStart?: AppStartFailure): RoleFinish => ({
    outcome: 'blocked',
    reason,
    verdicts: input.featureIds.map((id) => ({
      ...toVerdictRecord(id, undefined, context([]), reason),
      ...(appStart ? { appStart } : {}),
    })),
    ...(appStart ? { appStart } : {}),
  });
  if (features.length !== input.featureIds.length)
    return blockAll('a feature under evaluation is not in feature_list.json');
  if (!input.browser) return blockAll('no browser is available to this worker');
  const browser = input.browser;
  // A regression check replays recorded checks first: only features whose check is red (or missing) reach the model.
  const first = mode === 'regression' ? await replayFirst(input, repo, features) : undefined;
  const replayed: VerdictRecord[] = first?.passed ?? [];
  const failures = new Map(
    first?.toEvaluate.flatMap(({ feature, failure }) => (failure ? [[feature.id, failure]] : [])),
  );
  const open = first ? first.toEvaluate.map((item) => item.feature) : features;
  if (open.length === 0) return { outcome: 'completed', verdicts: replayed };
  const openIds = open.map((feature) => feature.id);
  // The app and the browser context start side by side: both take a second or two, and neither needs the other.
  // No base URL is given to the context, so the pool's pre-opened spare context fits every evaluation (the app's
  // port differs each time; the browser tools resolve relative URLs against the allowed origin themselves).
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
    return blockAll(started.reason, started.failure);
  }
  const app: RunningApp = started.app;
  if (!acquired.ok) {
    await app.stop();
    return blockAll(`the browser could not be started: ${acquired.error.message}`);
  }
  const evaluation = acquired.context;
  // From here the context reaches the app and nothing else (every other request is refused and listed).
  evaluation.allowOrigin(app.url);
  const observations = new ObservationLog(clock);
  const collector = new VerdictCollector(openIds, {
    features: open,
    observations: () => observations.entries(),
    onUngrounded: (featureId, failure, final) =>
      input.onNotice?.({ type: 'verdict.ungrounded', featureId, ...failure, final }),
  });
  const browserTools = createBrowserToolSet({
    page: evaluation.page,
    evidenceDir,
    consoleMessages: () => evaluation.consoleMessages,
    allowedOrigins: [app.url],
    observations,
  });
  const replayApps = appsAhead((index) => startFreshApp(input, repo, `replay-${index}`));
  const gate = new CheckGate({
    ...input,
    clock,
    workspace: repo.dir,
    features,
    reason: mode === 'regression' ? 'rerecord' : 'evaluate',
    page: browserTools.currentPage,
    appUrl: app.url,
    observations,
    replay: freshReplay({
      startApp: () => replayApps.take(),
      newContext: () =>
        browser.acquireContext({
          evidenceDir: checkReplaysDir(input.dataDir, input.runId),
          trace: false,
          onBlocked: browserBlockedEvents(input),
        }),
      screenshotDir: path.join(checkReplaysDir(input.dataDir, input.runId), 'screenshots'),
    }),
  });
  let evidence: string[] = [];
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    const left = await evaluation.close();
    evidence = [...left.screenshots, ...(left.tracePath ? [left.tracePath] : [])].map((file) =>
      path.relative(input.dataDir, file),
    );
    await Promise.all([app.stop(), replayApps.dispose()]);
  };
  return {
    system: rolePrompt('evaluator'),
    firstMessage: evaluatorMessage({ appUrl: app.url, features: open, mode, failures }),
    tools: [
      ...createFileTools({ readOnly: true }),
      ...browserTools.tools,
      createSubmitVerdictTool(collector, (verdict) => gate.review(verdict)),
    ],
    protectedPaths: EVALUATOR_PROTECTED_PATHS,
    unreadablePaths: EVALUATOR_UNREADABLE_PATHS,
    featureListRules: { mayChangePasses: false, mayCreate: false },
    hooks: {
      beforeStop: () => {
        const missing = collector.missing();
        return missing.length
          ? {
              stop: false,
              message: `Submit a verdict (submit_verdict) for: ${missing.join(', ')}. Then stop.`,
            }
          : { stop: true };
      },
    },
    release,
    finish: async (result, ending = {}) => {
      await release();
      // Stopped by the run (a pause, a cancel, a budget) or aborted: the evaluation was interrupted, not judged.
      const interrupted = ending.stoppedByRun !== undefined || result.outcome === 'aborted';
      const blockedReason =
        !interrupted && BLOCKING_OUTCOMES.has(result.outcome)
          ? `the evaluator ended (${result.outcome}) without submitting a verdict`
          : undefined;
      const verdicts = openIds
        .filter((id) => collector.get(id) || collector.blockedReason(id) || blockedReason)
        .map((id) => {
          const why = collector.blockedReason(id) ?? (collector.get(id) ? undefined : blockedReason);
          const record = namingFailedCheck(
            toVerdictRecord(id, collector.get(id), context(evidence), why),
            failures.get(id),
          );
          const ungrounded = collector.groundingFailures(id);
          const unrecordable = record.verdict === 'pass' ? gate.unrecorded.get(id) : undefined;
          return {
            ...record,
            ...(ungrounded.length ? { ungrounded } : {}),
            ...(unrecordable ? { unrecordable } : {}),
          };
        });
      await gate.write();
      if (interrupted) {
        return {
          outcome: 'aborted',
          reason: `interrupted, not judged: ${ending.stoppedByRun ?? result.reason ?? 'aborted'}`,
          verdicts: [...replayed, ...verdicts],
        };
      }
      const outcome = outcomeOfInterruptedLoop(result, 'blocked') ?? 'completed';
      return {
        outcome,
        ...(result.reason ? { reason: result.reason } : {}),
        verdicts: [...replayed, ...verdicts],
      };
    },
  };
}

/** A failed regression verdict names the recorded check's failed step first, for the generator's feedback. */
function namingFailedCheck(record: VerdictRecord, failure: string | undefined): VerdictRecord {
  if (!failure || record.verdict !== 'fail') return record;
  return { ...record, issues: [`The ${failure}.`, ...record.issues] };
}

async function featuresUnderEvaluation(repo: WorkspaceRepo, ids: readonly string[]): Promise<Feature[]> {
  const features = await readFeatureList(repo.dir);
  return ids
    .map((id) => features.find((feature) => feature.id === id))
    .filter((f): f is Feature => Boolean(f));
}
