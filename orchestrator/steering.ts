/**
 * A person steering one feature of a run: a note its next sessions read, reopening a passing feature (its
 * recorded check stays, as a regression to fix), unblocking a blocked one. Every action is a `feature.steered`
 * event naming who did it; a refused one changes nothing.
 */
import { z } from 'zod';
import { InputError, NightshiftError } from '../core/errors.js';
import { formatZodIssues } from '../core/zod-issues.js';
import { type HumanNote, HumanNoteKind } from '../roles/human-notes.js';
import { advanceRun, withAdvanceMutex } from './advance.js';
import { changeStatus } from './change-status.js';
import { syncWorkspaceAtRest } from './feature-list-sync.js';
import type { Orchestrator } from './orchestrator.js';
import { FeatureNotFoundError } from './run/run-errors.js';
import type { FeaturePatch } from './run/run-records.js';
import { ACTIVE_STATUSES, type FeatureState, type RunRecord } from './run/run-state.js';
import type { RunStore } from './run/run-store.js';

/** Longest note, reason or description a person may give (a brief is not a document store). */
export const MAX_STEER_TEXT = 4_000;
/** Notes kept per feature (the newest); every one is also in the run's events. */
export const MAX_NOTES_PER_FEATURE = 50;

/** A person's text (a note, a reason, a new feature's description): trimmed, 1 to {@link MAX_STEER_TEXT} characters. */
export const SteerText = z
  .string()
  .trim()
  .min(1, 'is empty: say what the session should know')
  .max(MAX_STEER_TEXT, `is longer than ${MAX_STEER_TEXT} characters`);

/** One steering action, as the CLI, the dashboard and the HTTP API give it (also the API's request body). */
export const SteerRequest = z.discriminatedUnion('action', [
  z.object({ action: z.literal('note'), text: SteerText }),
  z.object({ action: z.literal('reopen'), reason: SteerText }),
  z.object({ action: z.literal('unblock'), note: SteerText.optional() }),
]);
export type SteerRequest = z.input<typeof SteerRequest>;

/** Who steered: `cli:<os user>` or `dashboard`. */
export const SteeredBy = z.string().trim().min(1).max(100);

/** A steering action that does not fit the feature or the run (exit code 2, HTTP 409); nothing changed. */
export class SteerRefusedError extends NightshiftError {
  constructor(runId: string, featureId: string, action: string, reason: string, hint: string) {
    super(
      'FEATURE_STEER_REFUSED',
      `Cannot ${action} ${featureId} of run ${runId}: ${reason}; nothing changed.`,
      {
        hint,
        exitCode: 2,
      },
    );
  }
}

/** A steering request whose text is missing or too long (exit code 2, HTTP 400); nothing changed. */
export class SteerInputError extends InputError {
  constructor(detail: string) {
    super('FEATURE_STEER_INVALID', `Invalid steering request: ${detail}; nothing changed.`, {
      hint: `Give a text of 1 to ${MAX_STEER_TEXT} characters, e.g. \`nightshift note RUN F-003 "the button is labelled Save"\`.`,
    });
  }
}

/** What a steering action did. */
export interface SteerOutcome {
  run: RunRecord;
  feature: FeatureState;
}

/**
 * Applies a steering action to the run store only (validated; refused, changing nothing, when it does not fit)
 * and appends its `feature.steered` event. The caller moves the run on ({@link steerFeature} does).
 */
export async function steerFeatureInStore(
  store: RunStore,
  input: { runId: string; featureId: string; request: SteerRequest; by: string; now: Date },
): Promise<SteerOutcome> {
  const parsed = SteerRequest.safeParse(input.request);
  if (!parsed.success) throw new SteerInputError(formatZodIssues(parsed.error.issues));
  const by = SteeredBy.parse(input.by);
  const { runId, featureId } = input;
  const request = parsed.data;
  const run = await store.getRun(runId);
  const feature = (await store.listFeatures(runId)).find((candidate) => candidate.id === featureId);
  if (!feature) throw new FeatureNotFoundError(runId, featureId);
  const refusal = steerRefusal(run, feature, request.action);
  if (refusal) throw new SteerRefusedError(runId, featureId, request.action, refusal.reason, refusal.hint);
  const at = input.now.toISOString();
  const text =
    request.action === 'note' ? request.text : request.action === 'reopen' ? request.reason : request.note;
  const notes: HumanNote[] = text
    ? [...feature.humanNotes, { kind: request.action, text, by, at }].slice(-MAX_NOTES_PER_FEATURE)
    : feature.humanNotes;
  const patch: FeaturePatch = { humanNotes: notes };
  // A reopened feature starts over as failing: a generator next, with the reason and its recorded check.
  if (request.action === 'reopen')
    Object.assign(patch, { passes: false, attempts: 0, blockedEvaluations: 0, generatorSessions: 0 });
  let after = await store.updateFeature(runId, featureId, patch);
  if (request.action === 'unblock') after = await store.retryFeature(runId, featureId);
  await store.appendEvent(runId, {
    type: 'feature.steered',
    runId,
    at,
    featureId,
    action: HumanNoteKind.parse(request.action),
    text: text ?? null,
    by,
  });
  return { run: await store.getRun(runId), feature: after };
}

/** Why an action does not fit (and what to do instead), or undefined when it does. */
export function steerRefusal(
  run: RunRecord,
  feature: FeatureState,
  action: SteerRequest['action'],
): { reason: string; hint: string } | undefined {
  if (run.status === 'done' || run.status === 'cancelled')
    return {
      reason: `the run is ${run.status} and starts no more sessions`,
      hint: 'Start a new run on its workspace (`nightshift run SPEC --workspace DIR`); it picks up the feature list as it is.',
    };
  if (action === 'reopen' && !feature.passes)
    return {
      reason: 'it is not passing',
      hint: `Reopen is for passing features. For one still being built, leave a note: \`nightshift note ${run.id} ${feature.id} "…"\`.`,
    };
  if (action === 'unblock' && !feature.blocked)
    return {
      reason: 'it is not blocked',
      hint: `Unblock is for blocked features (\`nightshift status ${run.id}\` lists them). To tell its next session something, use \`nightshift note\`.`,
    };
  return undefined;
}

/**
 * Steers a feature and moves the run on: an incomplete run goes back to building when a feature has work again
 * (reopen, unblock) and an active run gets its next session queued. A paused or failed run stays so: `resume` it.
 */
export async function steerFeature(
  orchestrator: Orchestrator,
  input: {
    runId: string;
    featureId: string;
    request: SteerRequest;
    by: string;
    /** The data dir (the workspace's git guard): given, a reopen reaches `feature_list.json` at once when the run is at rest. */
    dataDir?: string;
  },
): Promise<SteerOutcome> {
  const outcome = await withAdvanceMutex(orchestrator, input.runId, async (locked) => {
    const steered = await steerFeatureInStore(orchestrator.store, { ...input, now: orchestrator.now() });
    if (locked && input.dataDir && input.request.action === 'reopen')
      await syncWorkspaceAtRest(orchestrator, input.runId, input.dataDir);
    return steered;
  });
  let run = await orchestrator.store.getRun(input.runId);
  if (input.request.action !== 'note' && run.status === 'incomplete')
    run = await changeStatus(orchestrator, run, 'building');
  if (ACTIVE_STATUSES.includes(run.status)) await advanceRun(orchestrator, run.id);
  return { run: await orchestrator.store.getRun(run.id), feature: outcome.feature };
}
