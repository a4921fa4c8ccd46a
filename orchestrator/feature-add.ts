/**
 * A person adds a feature to a run (`nightshift add RUN "…"`, the dashboard, `POST /api/runs/:id/features`): a short
 * writer session (roles/feature-writer.ts, the run's planner model) turns the words into a validated entry, which is
 * appended to the run store and the workspace's `feature_list.json` under the run's advance mutex; a finished run
 * goes back to building, and the run builds it. A `feature.added` event says who and when. Refused or not written:
 * a clear error, nothing changed.
 */
import type { EventSink } from '../agent/events.js';
import type { ModelProvider } from '../agent/messages.js';
import { InputError, NightshiftError } from '../core/errors.js';
import { formatZodIssues } from '../core/zod-issues.js';
import { validateNewFeature } from '../handoff/feature-entry.js';
import type { Feature } from '../handoff/formats.js';
import { runFeatureWriter, type WrittenFeature } from '../roles/feature-writer.js';
import { advanceRun, withAdvanceMutex } from './advance.js';
import { changeStatus } from './change-status.js';
import { plannerModelId } from './config.js';
import { syncWorkspaceAtRest, toFeatureEntry } from './feature-list-sync.js';
import type { Orchestrator } from './orchestrator.js';
import { casUpdateRun } from './run/run-cas.js';
import {
  ACTIVE_STATUSES,
  type FeatureState,
  type RunRecord,
  summarizeFeatures,
  toFeatureState,
} from './run/run-state.js';
import { MAX_STEER_TEXT, SteeredBy, SteerText } from './steering.js';

/** An add that does not fit the run (exit code 2, HTTP 409); nothing changed. */
export class AddRefusedError extends NightshiftError {
  constructor(runId: string, reason: string, hint: string) {
    super('FEATURE_ADD_REFUSED', `Cannot add a feature to run ${runId}: ${reason}; nothing changed.`, {
      hint,
      exitCode: 2,
    });
  }
}

/** A description that is missing or too long (exit code 2, HTTP 400); nothing changed. */
export class AddInputError extends InputError {
  constructor(detail: string) {
    super('FEATURE_ADD_INVALID', `Invalid feature description: ${detail}; nothing changed.`, {
      hint: `Describe the feature in 1 to ${MAX_STEER_TEXT} characters, e.g. \`nightshift add RUN "a Clear completed button removes every completed todo"\`.`,
    });
  }
}

/** What an add needs besides the orchestrator. */
export interface AddFeatureInput {
  runId: string;
  /** The person's words. */
  text: string;
  /** Who: `cli:<os user>`, `dashboard` or `api`. */
  by: string;
  /** The data dir: the writer's transcript, the workspace's git guard. */
  dataDir: string;
  /** A provider for a model id; the writer runs on the run's planner model (models.planner, else the generator's). */
  providerFor: (modelId: string) => ModelProvider;
  secrets?: readonly string[];
  signal?: AbortSignal;
  sink?: EventSink;
}

/** What an add did: the run after it, the feature as stored, the writer session. */
export interface AddOutcome {
  run: RunRecord;
  feature: FeatureState;
  written: WrittenFeature;
}

/** Why a run takes no new feature (and what to do instead), or undefined when it does. */
export function addRefusal(
  run: RunRecord,
  featureCount: number,
): { reason: string; hint: string } | undefined {
  if (run.status === 'cancelled')
    return {
      reason: 'the run is cancelled and starts no more sessions',
      hint: 'Start a new run on its workspace (`nightshift run SPEC --workspace DIR`); add the feature there.',
    };
  if (featureCount === 0)
    return {
      reason: 'it has no feature list yet',
      hint: `Wait for its initializer (\`nightshift status ${run.id}\`), then add the feature.`,
    };
  return undefined;
}

/**
 * Adds a feature: checks the words and the run, runs the writer (refused or failed: throws, nothing changed), appends
 * the entry (store, event, and the workspace's list when the run is at rest), then moves the run on: a done or
 * incomplete run builds again and an active run gets its next session queued. A paused or failed run stays so.
 */
export async function addFeature(orchestrator: Orchestrator, input: AddFeatureInput): Promise<AddOutcome> {
  const text = SteerText.safeParse(input.text);
  if (!text.success) throw new AddInputError(`the text ${formatZodIssues(text.error.issues)}`);
  const by = SteeredBy.parse(input.by);
  const { store } = orchestrator;
  const run = await store.getRun(input.runId);
  const features = await store.listFeatures(run.id);
  const refusal = addRefusal(run, features.length);
  if (refusal) throw new AddRefusedError(run.id, refusal.reason, refusal.hint);
  const written = await runFeatureWriter({
    runId: run.id,
    request: text.data,
    features: features.map(toFeatureEntry),
    provider: input.providerFor(plannerModelId(run.config.models)),
    prices: run.config.prices,
    dataDir: input.dataDir,
    writerId: `add-${orchestrator.now().getTime().toString(36)}`,
    ...(input.secrets ? { secrets: input.secrets } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.sink ? { sink: input.sink } : {}),
  });
  const feature = await withAdvanceMutex(orchestrator, run.id, async (locked) => {
    const appended = await appendFeature(orchestrator, run.id, written);
    await store.appendEvent(run.id, {
      type: 'feature.added',
      runId: run.id,
      at: orchestrator.now().toISOString(),
      featureId: appended.id,
      description: appended.description,
      dependsOn: appended.depends_on ?? [],
      text: text.data,
      by,
      costUsd: written.costUsd,
      refusals: written.refusals.length,
    });
    if (locked) await syncWorkspaceAtRest(orchestrator, run.id, input.dataDir);
    return appended;
  });
  let after = await store.getRun(run.id);
  if (after.status === 'done' || after.status === 'incomplete')
    after = await changeStatus(orchestrator, after, 'building');
  if (ACTIVE_STATUSES.includes(after.status)) await advanceRun(orchestrator, run.id);
  return { run: await store.getRun(run.id), feature, written };
}

/**
 * Appends the written entry in one compare-and-set: checked again against the list as it is now (another add may have
 * taken its id: it gets the next one), its cost added to the run's. Throws AddRefusedError when it no longer fits.
 */
async function appendFeature(
  orchestrator: Pick<Orchestrator, 'redis' | 'store' | 'now'>,
  runId: string,
  written: WrittenFeature,
): Promise<FeatureState> {
  let appended: FeatureState | undefined;
  const { id: _id, passes: _passes, ...entry } = written.feature as Feature;
  await casUpdateRun(
    orchestrator.redis,
    orchestrator.store.keys(runId),
    runId,
    { features: true },
    (run, features) => {
      const refusal = addRefusal(run, features.length);
      if (refusal) throw new AddRefusedError(runId, refusal.reason, refusal.hint);
      const checked = validateNewFeature(features.map(toFeatureEntry), entry);
      if (!checked.ok) throw new AddRefusedError(runId, checked.problems.join('; '), 'Try the add again.');
      appended = toFeatureState(checked.feature, features.length);
      const counters = { ...run.counters };
      if (written.costUsd === null) {
        const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = written.usage;
        counters.unpricedTokens += inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens;
      } else counters.costUsd += written.costUsd;
      const next = [...features, appended];
      const at = orchestrator.now().toISOString();
      return {
        run: { ...run, counters, features: summarizeFeatures(next), updatedAt: at },
        features: [appended],
      };
    },
  );
  return appended as FeatureState;
}
