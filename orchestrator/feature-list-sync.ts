/**
 * What the workspace's `feature_list.json` owes the run store after a person changed the list (a feature added, a
 * passing one reopened), and writing it while the run is at rest. Only whoever holds the workspace may write it:
 * a session's worker does before the session starts (roles/session.ts, from {@link featureListSyncOf}); a person's
 * action does at once only when no session of the run is queued or running, under the run's advance mutex (held by
 * the caller), in a local workspace. Otherwise the next session's start brings the list in line.
 */
import { moduleLogger } from '../core/log.js';
import { gitRecordPath } from '../core/paths.js';
import { type FeatureListSync, type SyncOutcome, syncFeatureList } from '../handoff/feature-list-sync.js';
import type { Feature } from '../handoff/formats.js';
import { openRepo } from '../handoff/git.js';
import type { Orchestrator } from './orchestrator.js';
import type { FeatureState, RunRecord } from './run/run-state.js';
import { IN_FLIGHT_STATES, runJobStates } from './session-jobs.js';

const log = moduleLogger('orchestrator/feature-list-sync');

/** A stored feature as the workspace's list holds it (the harness's own fields left out). */
export function toFeatureEntry(feature: FeatureState): Feature {
  return {
    id: feature.id,
    category: feature.category,
    description: feature.description,
    steps: feature.steps,
    passes: feature.passes,
    ...(feature.depends_on?.length ? { depends_on: feature.depends_on } : {}),
  };
}

/**
 * Reopened and not judged since: a person's `reopen` newer than the feature's last verdict. Only these are set failing
 * in a workspace: a feature the store calls failing for another reason (a lane's passed feature sent back by the merge
 * queue) may rightly pass on the branch a session works on.
 */
export function reopenedSinceVerdict(feature: FeatureState): boolean {
  const reopened = feature.humanNotes.filter((note) => note.kind === 'reopen').at(-1);
  return !feature.passes && reopened !== undefined && reopened.at > (feature.lastVerdictAt ?? '');
}

/** The sync of the run's list: every feature (a missing one is appended) and the reopened ones set failing. */
export function featureListSyncOf(features: readonly FeatureState[]): FeatureListSync {
  return {
    features: features.map(toFeatureEntry),
    failing: features.filter(reopenedSinceVerdict).map((feature) => feature.id),
  };
}

/** Whether a session job of the run is queued or running (its workspace may be in use). */
export async function sessionQueuedOrRunning(
  orchestrator: Pick<Orchestrator, 'queues'>,
  run: RunRecord,
): Promise<boolean> {
  return (await runJobStates(orchestrator, run)).some((state) => IN_FLIGHT_STATES.has(state));
}

/**
 * Writes the store's list into a local workspace at once when nothing works in it (call under the run's advance
 * mutex, so no session is queued meanwhile); undefined when it was left to the next session. A failure is logged,
 * never thrown: the person's change is in the store, and the next session's start writes it.
 */
export async function syncWorkspaceAtRest(
  orchestrator: Pick<Orchestrator, 'queues' | 'store'>,
  runId: string,
  dataDir: string,
): Promise<SyncOutcome | undefined> {
  const run = await orchestrator.store.getRun(runId);
  if (run.workspace.kind !== 'local' || (await sessionQueuedOrRunning(orchestrator, run))) return undefined;
  const dir = run.workspace.path;
  try {
    const repo = openRepo(dir, { guard: { recordFile: gitRecordPath(dataDir, runId, dir) } });
    const features = await orchestrator.store.listFeatures(runId);
    return await syncFeatureList(repo, featureListSyncOf(features), { runId, session: run.seq });
  } catch (error) {
    log.warn({ err: error, runId, dir }, 'the feature list was left to the next session');
    return undefined;
  }
}
