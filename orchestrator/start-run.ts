import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import { adoptWorkspace } from '../handoff/adopt.js';
import { readFeatureList } from '../handoff/feature-list.js';
import { WORKSPACE_FILES } from '../handoff/formats.js';
import { checkpoint } from '../handoff/git.js';
import { pushFastForward, syncWorkspace } from '../handoff/git-remote.js';
import { createWorkspace } from '../handoff/workspace.js';
import { advanceRun } from './advance.js';
import type { RunConfig } from './config.js';
import type { Orchestrator } from './orchestrator.js';
import { newRunId, type RunRecord } from './run-state.js';

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
}

/**
 * Registers a run and queues its first session. A local workspace is created (spec copied in, git, first
 * commit) or, when it already holds a feature list (ours or the quickstart's), adopted and resumed. A
 * remote workspace gets the spec committed on the run branch and pushed.
 */
export async function startRun(orchestrator: Orchestrator, input: StartRunInput): Promise<RunRecord> {
  if (!existsSync(input.specPath)) {
    throw new InputError('SPEC_NOT_FOUND', `The spec ${input.specPath} does not exist.`, {
      hint: 'Pass the path of a written spec, e.g. examples/todo/app_spec.md.',
    });
  }
  const id = input.id ?? newRunId(orchestrator.now());
  const specName = path.basename(input.specPath);
  const prepared =
    input.workspace.kind === 'local'
      ? await prepareLocal(input.workspace.dir, input.specPath, id)
      : await prepareRemote(
          input.workspace,
          input.specPath,
          path.join(input.dataDir, 'clones', 'start', id),
          id,
        );
  const run = await orchestrator.store.createRun({
    id,
    spec: { path: path.resolve(input.specPath), name: specName },
    workspace: prepared.workspace,
    config: input.config,
  });
  if (prepared.features.length) await orchestrator.store.replaceFeatures(id, prepared.features);
  await advanceRun(orchestrator, id);
  return orchestrator.store.getRun(run.id);
}

async function prepareLocal(dir: string, specPath: string, runId: string) {
  const absolute = path.resolve(dir);
  if (existsSync(path.join(absolute, WORKSPACE_FILES.featureList))) {
    const report = await adoptWorkspace(absolute, { runId });
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
  await createWorkspace({ dir: absolute, specPath, runId });
  return { workspace: { kind: 'local' as const, path: absolute }, features: [] };
}

async function prepareRemote(
  remote: { url: string; branch?: string },
  specPath: string,
  cacheDir: string,
  runId: string,
) {
  const branch = remote.branch ?? 'main';
  await mkdir(path.dirname(cacheDir), { recursive: true });
  const { repo } = await syncWorkspace({ url: remote.url, branch, cacheDir });
  const hasList = existsSync(path.join(repo.dir, WORKSPACE_FILES.featureList));
  if (!hasList) {
    await copyFile(specPath, path.join(repo.dir, 'app_spec.md'));
    await checkpoint(repo, { role: 'harness', runId, session: 0, summary: 'add the spec (app_spec.md)' });
    await pushFastForward(repo, branch);
  }
  return {
    workspace: { kind: 'remote' as const, url: remote.url, branch },
    features: hasList ? await readFeatureList(repo.dir) : [],
  };
}
