import { existsSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { FormatError } from './errors.js';
import { assignIds, readFeatureListOnDisk, writeFeatureList } from './feature-list.js';
import { feedbackPath } from './feedback.js';
import { WORKSPACE_FILES } from './formats.js';
import { checkpoint, ensureRepo, type RepoOptions } from './git.js';
import { checkInitScript, FIXED_PORT_PROBLEM } from './init-script.js';
import { type ProgressSource, progressSource } from './progress.js';
import { UnsafeFileError, writeWorkspaceFile } from './safe-fs.js';

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
  /** The state of `init.sh` (`fixedPort`: it never mentions `$PORT`). */
  initScript: { present: boolean; executable: boolean; fixedPort: boolean };
  /** The directory was not a git repository and was made one (everything committed as found). */
  gitInitialized: boolean;
  /** The feature whose feedback asks the first generator to make init.sh use `$PORT`; null when none. */
  portTask: string | null;
  /** Things a user should fix before a run can resume; empty when none. */
  problems: string[];
}

/**
 * Reads and validates an existing workspace (ours or the quickstart's) and reports what it holds. Every check is
 * made before anything is written: with a problem the directory is left byte for byte as it was (not even
 * `git init`). Otherwise it assigns ids to features that have none (writing the file back with every other field
 * as it was and committing just that file); an `init.sh` on a fixed port is left to the first generator, through
 * the feedback of the first failing feature ({@link FIXED_PORT_FEEDBACK}).
 */
export async function adoptWorkspace(
  dir: string,
  options: RepoOptions & { runId?: string } = {},
): Promise<AdoptionReport> {
  const workspace = path.resolve(dir);
  const found = await inspectWorkspace(workspace);
  const { list, kind, problems } = found;
  const base = { kind, progressSource: found.source, initScript: found.initScript, problems };
  if (!list || problems.length > 0) {
    return { ...base, features: 0, passing: 0, idsAssigned: 0, gitInitialized: false, portTask: null };
  }
  const gitInitialized = !existsSync(path.join(workspace, '.git'));
  const repo = await ensureRepo(workspace, options);
  const runId = options.runId ?? 'adopt';
  if (gitInitialized) {
    await checkpoint(repo, { role: 'harness', runId, session: 0, summary: 'adopt the existing workspace' });
  }
  const { list: withIds, assigned } = assignIds(list);
  const portTask = found.initScript.fixedPort
    ? (withIds.find((feature) => !feature.passes)?.id ?? null)
    : null;
  if (assigned > 0) await writeFeatureList(workspace, withIds);
  if (portTask) await writeWorkspaceFile(workspace, feedbackPath(portTask), FIXED_PORT_FEEDBACK);
  if (assigned > 0 || portTask) {
    const what = [
      ...(assigned > 0 ? [`assign ids to ${assigned} features in ${WORKSPACE_FILES.featureList}`] : []),
      ...(portTask ? [`$PORT task on ${portTask}`] : []),
    ];
    await checkpoint(repo, {
      role: 'harness',
      runId,
      session: 0,
      summary: what.join('; '),
      paths: [WORKSPACE_FILES.featureList, ...(portTask ? [feedbackPath(portTask)] : [])],
    });
    log.info({ workspace, assigned, portTask }, 'adopted');
  }
  const passing = withIds.filter((f) => f.passes).length;
  return { ...base, features: withIds.length, passing, idsAssigned: assigned, gitInitialized, portTask };
}

/** The feedback that asks the first generator of an adopted workspace to make its `init.sh` honour `$PORT`. */
export const FIXED_PORT_FEEDBACK = [
  '# Before this feature: make init.sh use $PORT',
  '',
  'This workspace was adopted by nightshift. Its init.sh starts the app on a fixed port, but the harness starts',
  'every app on a port of its own (several evaluations and replays may run at once) and gives it in the PORT',
  'environment variable. Change init.sh (and the app, if the port is hard-coded there) so the app listens on',
  `127.0.0.1:$PORT, keeping a default for people who run it by hand (for example \`PORT="\${PORT:-3000}"\`).`,
  'Then go on with this feature as usual.',
  '',
].join('\n');

/** What the read-only inspection of a workspace found. */
interface Inspection {
  kind: AdoptionReport['kind'];
  source: ProgressSource;
  initScript: AdoptionReport['initScript'];
  /** The feature list on disk; undefined when missing or invalid. */
  list: Awaited<ReturnType<typeof readFeatureListOnDisk>> | undefined;
  problems: string[];
}

/** Everything adoption checks, without writing anything. */
async function inspectWorkspace(workspace: string): Promise<Inspection> {
  const source = await progressSource(workspace);
  const init = await checkInitScript(workspace, { makeExecutable: false });
  const fixedPort = init.present && init.problems.includes(FIXED_PORT_PROBLEM);
  const problems = init.problems.filter((problem) => problem !== FIXED_PORT_PROBLEM);
  const initScript = { present: init.present, executable: init.executable, fixedPort };
  const hasHarnessDir = existsSync(path.join(workspace, WORKSPACE_FILES.harnessDir));
  const ours = source === 'progress.md' || hasHarnessDir;
  if (!(await lstat(path.join(workspace, WORKSPACE_FILES.featureList)).catch(() => null))) {
    return { kind: 'empty', source, initScript, list: undefined, problems };
  }
  try {
    const list = await readFeatureListOnDisk(workspace);
    const missingIds = list.some((f) => f.id === undefined);
    const kind = ours || (!missingIds && source !== 'claude-progress.txt') ? 'nightshift' : 'quickstart';
    return { kind, source, initScript, list, problems };
  } catch (error) {
    if (!(error instanceof FormatError) && !(error instanceof UnsafeFileError)) throw error;
    return {
      kind: ours ? 'nightshift' : 'quickstart',
      source,
      initScript,
      list: undefined,
      problems: [...problems, error.message],
    };
  }
}
