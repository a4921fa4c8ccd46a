import { existsSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { FormatError } from './errors.js';
import { assignIds, readFeatureListOnDisk, writeFeatureList } from './feature-list.js';
import { WORKSPACE_FILES } from './formats.js';
import { checkpoint, ensureRepo, type RepoOptions } from './git.js';
import { checkInitScript } from './init-script.js';
import { type ProgressSource, progressSource } from './progress.js';
import { UnsafeFileError } from './safe-fs.js';

const log = moduleLogger('handoff/adopt');

/** What {@link adoptWorkspace} found in an existing workspace. */
export interface AdoptionReport {
  /** `nightshift`: ours; `quickstart`: made by the autonomous-coding quickstart; `empty`: no feature list yet. */
  kind: 'nightshift' | 'quickstart' | 'empty';
  /** Number of features (0 when the list is missing or invalid). */
  features: number;
  /** Number of features with `passes: true`. */
  passing: number;
  /** Ids this adoption assigned (and committed). */
  idsAssigned: number;
  /** The progress log found. */
  progressSource: ProgressSource;
  /** The state of `init.sh`. */
  initScript: { present: boolean; executable: boolean };
  /** The directory was not a git repository and was made one (everything committed as found). */
  gitInitialized: boolean;
  /** Things a user should fix before a run can resume; empty when none. */
  problems: string[];
}

/**
 * Reads and validates an existing workspace (ours or the quickstart's) and reports what it holds. Assigns ids to
 * features that have none, writing the file back with every other field as it was and committing just that file;
 * converts nothing else.
 */
export async function adoptWorkspace(
  dir: string,
  options: RepoOptions & { runId?: string } = {},
): Promise<AdoptionReport> {
  const workspace = path.resolve(dir);
  const gitInitialized = !existsSync(path.join(workspace, '.git'));
  const repo = await ensureRepo(workspace, options);
  const runId = options.runId ?? 'adopt';
  if (gitInitialized) {
    await checkpoint(repo, { role: 'harness', runId, session: 0, summary: 'adopt the existing workspace' });
  }
  const problems: string[] = [];
  const source = await progressSource(workspace);
  const init = await checkInitScript(workspace, { makeExecutable: false });
  problems.push(...init.problems);
  const hasHarnessDir = existsSync(path.join(workspace, WORKSPACE_FILES.harnessDir));
  if (!(await lstat(path.join(workspace, WORKSPACE_FILES.featureList)).catch(() => null))) {
    return report('empty', 0, 0, 0);
  }
  let onDisk: Awaited<ReturnType<typeof readFeatureListOnDisk>>;
  try {
    onDisk = await readFeatureListOnDisk(workspace);
  } catch (error) {
    if (!(error instanceof FormatError) && !(error instanceof UnsafeFileError)) throw error;
    problems.push(error.message);
    return report(source === 'progress.md' || hasHarnessDir ? 'nightshift' : 'quickstart', 0, 0, 0);
  }
  const missingIds = onDisk.some((f) => f.id === undefined);
  const kind =
    source === 'progress.md' || hasHarnessDir || (!missingIds && source !== 'claude-progress.txt')
      ? 'nightshift'
      : 'quickstart';
  const { list, assigned } = assignIds(onDisk);
  if (assigned > 0) {
    await writeFeatureList(workspace, list);
    await checkpoint(repo, {
      role: 'harness',
      runId,
      session: 0,
      summary: `assign ids to ${assigned} features in ${WORKSPACE_FILES.featureList}`,
      paths: [WORKSPACE_FILES.featureList],
    });
    log.info({ workspace, assigned }, 'assigned feature ids');
  }
  const passing = list.filter((f) => f.passes).length;
  return report(kind, list.length, passing, assigned);

  function report(
    kind: AdoptionReport['kind'],
    features: number,
    passingCount: number,
    idsAssigned: number,
  ): AdoptionReport {
    return {
      kind,
      features,
      passing: passingCount,
      idsAssigned,
      progressSource: source,
      initScript: { present: init.present, executable: init.executable },
      gitInitialized,
      problems,
    };
  }
}
