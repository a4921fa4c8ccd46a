/**
 * Bringing `feature_list.json` in line with what a person changed in the run (a feature added, a passing one
 * reopened): the run store changes at once, the workspace when nothing works in it — before a session starts, or at
 * once when the run is at rest. One harness commit; nothing when the list already agrees.
 */
import { z } from 'zod';
import { FormatError } from './errors.js';
import { readFeatureList, writeFeatureList } from './feature-list.js';
import { Feature, FeatureId, WORKSPACE_FILES } from './formats.js';
import { checkpoint, type WorkspaceRepo } from './git.js';

/** What the workspace's list must hold, as the run store knows it. */
export const FeatureListSync = z.object({
  /** Entries the list must have (a missing id is appended, in this order); entries it has are left as they are. */
  features: z.array(Feature),
  /** Features that must not be passing in the list (reopened): a `true` flag is set back to false. */
  failing: z.array(FeatureId),
});
export type FeatureListSync = z.infer<typeof FeatureListSync>;

/** What a sync changed: its commit (null: nothing to change), the ids appended and those set failing. */
export interface SyncOutcome {
  sha: string | null;
  appended: string[];
  reopened: string[];
}

/**
 * Appends the features the list lacks and sets the reopened ones failing, then commits the list (the harness's
 * commit, `session` naming the session it precedes). A workspace without a valid list yet is left alone: the
 * initializer writes it, and the integrity guard deals with a broken one.
 */
export async function syncFeatureList(
  repo: WorkspaceRepo,
  sync: FeatureListSync,
  commit: { runId: string; session: number },
): Promise<SyncOutcome> {
  const none: SyncOutcome = { sha: null, appended: [], reopened: [] };
  let list: Feature[];
  try {
    list = await readFeatureList(repo.dir);
  } catch (error) {
    if (error instanceof FormatError) return none;
    throw error;
  }
  const have = new Set(list.map((feature) => feature.id));
  const appended = sync.features.filter((feature) => !have.has(feature.id));
  const failing = new Set(sync.failing);
  const reopened = list.filter((feature) => feature.passes && failing.has(feature.id));
  if (appended.length === 0 && reopened.length === 0) return none;
  for (const feature of reopened) feature.passes = false;
  await writeFeatureList(repo.dir, [...list, ...appended.map((feature) => ({ ...feature, passes: false }))]);
  const summary = [
    ...(appended.length ? [`${appended.map((feature) => feature.id).join(', ')} added by a person`] : []),
    ...(reopened.length ? [`${reopened.map((feature) => feature.id).join(', ')} reopened`] : []),
  ].join('; ');
  const sha = await checkpoint(repo, {
    role: 'harness',
    runId: commit.runId,
    session: commit.session,
    summary: `feature list: ${summary}`,
    paths: [WORKSPACE_FILES.featureList],
  });
  return { sha, appended: appended.map((feature) => feature.id), reopened: reopened.map((f) => f.id) };
}
