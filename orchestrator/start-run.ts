import { existsSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { gitRecordPath } from '../core/paths.js';
import { adoptWorkspace } from '../handoff/adopt.js';
import { readFeatureList } from '../handoff/feature-list.js';
import { WORKSPACE_FILES } from '../handoff/formats.js';
import { checkpoint } from '../handoff/git.js';
import { pushFastForward, syncWorkspace } from '../handoff/git-remote.js';
import { harnessRemoteCredentials } from '../handoff/remote-credentials.js';
import { writeWorkspaceFile } from '../handoff/safe-fs.js';
import { type SpecOrigin, specCommitSummary, writePlanRecord } from '../handoff/spec-origin.js';
import { nameFromSpec } from '../handoff/spec-title.js';
import { createWorkspace } from '../handoff/workspace.js';
import { advanceRun } from './advance.js';
import type { RunConfig } from './config.js';
import { sessionJobId } from './keys.js';
import { lanesEstimateEvent } from './lanes/lanes-payoff.js';
import type { Orchestrator } from './orchestrator.js';
import { newRunId, type RunRecord } from './run/run-state.js';
import { withWorkspaceClaim } from './workspace-claim.js';

const log = moduleLogger('orchestrator/start-run');

/** Where a new run works. */
export type RunWorkspaceInput =
  | { kind: 'local'; dir: string }
  | { kind: 'remote'; url: string; branch?: string };

/** What {@link startRun} needs. */
export interface StartRunInput {
  specPath: string;
  workspace: RunWorkspaceInput;
  config: RunConfig;
  /** The data dir (remote runs prepare their first commit in a clone under it). */
  dataDir: string;
  id?: string;
  /** A planned spec's origin (prompt, questions, model): committed with the spec. */
  origin?: SpecOrigin;
  /** What people call the run (`--name`); default: the spec's title, else its file name. */
  name?: string;
  /**
   * A new run on a workspace whose earlier run ended (`run … --new`): before anything else it re-checks every
   * feature the adopted list marks passing (a regression sweep, recorded checks replayed first).
   */
  recheckPassing?: boolean;
}

/**
 * Registers a run and queues its first session. A local workspace is created (spec copied in, git, first
 * commit) or, when it already holds a feature list (ours or the quickstart's), adopted and resumed. A
 * remote workspace gets the spec committed on the run branch and pushed.
 */
export async function startRun(orchestrator: Orchestrator, input: StartRunInput): Promise<RunRecord> {
  await assertSpec(input.specPath);
  if (input.workspace.kind === 'local') await assertWorkspaceDir(input.workspace.dir);
  return withWorkspaceClaim(orchestrator, input.workspace, () => startClaimed(orchestrator, input));
}

async function startClaimed(orchestrator: Orchestrator, input: StartRunInput): Promise<RunRecord> {
  const id = input.id ?? newRunId(orchestrator.now());
  const specName = path.basename(input.specPath);
  const prepared =
    input.workspace.kind === 'local'
      ? await prepareLocal(input.workspace.dir, input.specPath, id, input.dataDir, input.origin)
      : await prepareRemote(
          input.workspace,
          input.specPath,
          path.join(input.dataDir, 'clones', 'start', id),
          id,
          input.dataDir,
          input.origin,
        );
  const name = input.name ?? nameFromSpec(await readFile(input.specPath, 'utf8'), input.specPath);
  const run = await orchestrator.store.createRun({
    id,
    name,
    spec: { path: path.resolve(input.specPath), name: specName },
    workspace: prepared.workspace,
    config: input.config,
  });
  try {
    if (prepared.features.length) {
      await orchestrator.store.replaceFeatures(id, prepared.features);
      // An adopted feature list is known now: when the lanes asked for will not pay for it, say so once.
      const estimate = lanesEstimateEvent(
        run,
        await orchestrator.store.listFeatures(id),
        orchestrator.now().toISOString(),
      );
      if (estimate) await orchestrator.store.appendEvent(id, estimate);
    }
    if (input.recheckPassing && prepared.features.some((feature) => feature.passes)) {
      await orchestrator.store.requestWindowSweep(id);
    }
    await advanceRun(orchestrator, id);
    return await orchestrator.store.getRun(run.id);
  } catch (error) {
    // A start that failed half-way leaves no run behind: a run stuck in `created` would own the workspace and
    // block every later `run` and `resume` on it. The workspace's commits stay; the next start adopts them.
    await discardRun(orchestrator, id);
    throw error;
  }
}

/** Removes a run that never started, and its queued first session, if any. */
async function discardRun(orchestrator: Orchestrator, runId: string): Promise<void> {
  try {
    const job = await orchestrator.queues.sessions.getJob(sessionJobId(runId, 1));
    await job?.remove();
    await orchestrator.store.deleteRun(runId);
  } catch (error) {
    log.error({ err: error, runId }, 'a run whose start failed could not be removed; cancel it');
  }
}

/** Refuses a local workspace path that exists but is not a directory (or has a file on its way). */
export async function assertWorkspaceDir(dir: string): Promise<void> {
  const absolute = path.resolve(dir);
  for (let at = absolute; ; at = path.dirname(at)) {
    const info = await stat(at).catch(() => undefined);
    if (info && !info.isDirectory()) {
      throw new InputError(
        'WORKSPACE_NOT_A_DIRECTORY',
        at === absolute
          ? `The workspace ${absolute} is a file, not a directory.`
          : `The workspace ${absolute} cannot be created: ${at} is a file.`,
        {
          hint: 'Pass a directory for --workspace: an empty or new one to start, or one holding a feature list to resume.',
        },
      );
    }
    if (info || path.dirname(at) === at) return;
  }
}

/** Refuses a spec that does not exist or is not a written spec (before anything is written). */
export async function assertSpec(specPath: string): Promise<void> {
  if (!existsSync(specPath)) {
    throw new InputError('SPEC_NOT_FOUND', `The spec ${specPath} does not exist.`, {
      hint: 'Pass the path of a written spec, e.g. examples/todo/app_spec.md.',
    });
  }
  await checkSpec(specPath);
}

/**
 * Largest spec accepted, in bytes. The spec goes whole into the initializer's first message: 512 KiB is
 * about 130,000 tokens, what a 200,000-token context can hold beside the prompt and the work.
 */
export const MAX_SPEC_BYTES = 512 * 1024;

/** Refuses a spec that cannot be a written spec: empty, too large, binary or not UTF-8 (before anything is written). */
export async function checkSpec(specPath: string): Promise<void> {
  const info = await stat(specPath);
  const hint = 'Pass a written spec: a UTF-8 text (markdown) file describing the application.';
  if (!info.isFile()) throw new InputError('SPEC_INVALID', `The spec ${specPath} is not a file.`, { hint });
  if (info.size > MAX_SPEC_BYTES) {
    throw new InputError(
      'SPEC_TOO_LARGE',
      `The spec ${specPath} is ${info.size} bytes; the limit is ${MAX_SPEC_BYTES} bytes (512 KiB), what fits an initializer's context.`,
      { hint: 'Shorten the spec: keep what the application must do, link or drop the rest.' },
    );
  }
  const bytes = await readFile(specPath);
  if (bytes.includes(0)) {
    throw new InputError('SPEC_BINARY', `The spec ${specPath} is a binary file (it contains NUL bytes).`, {
      hint,
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError('SPEC_NOT_UTF8', `The spec ${specPath} is not valid UTF-8 text.`, {
      hint: 'Convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8 spec.md > spec.utf8.md).',
    });
  }
  if (text.trim() === '') {
    throw new InputError('SPEC_EMPTY', `The spec ${specPath} is empty.`, { hint });
  }
}

/** The known-good `.git` of a workspace is recorded in the data dir when the harness creates, clones or adopts it. */
function gitGuard(dataDir: string, runId: string, workspace: string) {
  return { recordFile: gitRecordPath(dataDir, runId, workspace) };
}

async function prepareLocal(
  dir: string,
  specPath: string,
  runId: string,
  dataDir: string,
  origin?: SpecOrigin,
) {
  const absolute = path.resolve(dir);
  const guard = gitGuard(dataDir, runId, absolute);
  if (existsSync(path.join(absolute, WORKSPACE_FILES.featureList))) {
    if (origin) throw plannedSpecOnBuiltWorkspace(absolute);
    const report = await adoptWorkspace(absolute, { runId, guard });
    if (report.problems.length) {
      throw new InputError(
        'WORKSPACE_INVALID',
        `The workspace ${absolute} cannot be resumed:\n${report.problems.join('\n')}`,
        {
          hint: 'Fix the problems listed, or start in an empty directory.',
        },
      );
    }
    return {
      workspace: { kind: 'local' as const, path: absolute },
      features: await readFeatureList(absolute),
    };
  }
  await createWorkspace({ dir: absolute, specPath, runId, guard, ...(origin ? { origin } : {}) });
  return { workspace: { kind: 'local' as const, path: absolute }, features: [] };
}

async function prepareRemote(
  remote: { url: string; branch?: string },
  specPath: string,
  cacheDir: string,
  runId: string,
  dataDir: string,
  origin?: SpecOrigin,
) {
  const branch = remote.branch ?? 'main';
  await mkdir(path.dirname(cacheDir), { recursive: true });
  const guard = gitGuard(dataDir, runId, cacheDir);
  const credentials = harnessRemoteCredentials(dataDir);
  const { repo } = await syncWorkspace({ url: remote.url, branch, cacheDir, guard, credentials });
  const hasList = existsSync(path.join(repo.dir, WORKSPACE_FILES.featureList));
  if (hasList && origin) throw plannedSpecOnBuiltWorkspace(remote.url);
  if (!hasList) {
    // Written, not copied: a link committed at that name on the remote is replaced, never followed.
    await writeWorkspaceFile(repo.dir, 'app_spec.md', await readFile(specPath));
    if (origin) await writePlanRecord(repo.dir, origin, 'app_spec.md');
    const summary = specCommitSummary('add the spec (app_spec.md)', origin);
    await checkpoint(repo, { role: 'harness', runId, session: 0, summary });
    await pushFastForward(repo, branch);
  }
  return {
    workspace: { kind: 'remote' as const, url: remote.url, branch },
    features: hasList ? await readFeatureList(repo.dir) : [],
  };
}

/** A planned spec cannot go into a workspace that is already being built from another one. */
function plannedSpecOnBuiltWorkspace(where: string): InputError {
  return new InputError(
    'WORKSPACE_HAS_FEATURES',
    `${where} already holds a feature list: a new spec would not be read (the run would resume the old one).`,
    {
      hint: 'Choose an empty or new workspace for a planned spec, or resume this one with `nightshift run <spec>`.',
    },
  );
}
