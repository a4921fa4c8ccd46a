import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createBashTool, createFileTools } from '../agent/tools/index.js';
import { validateInitialFeatureList, writeFeatureList } from '../handoff/feature-list.js';
import { WORKSPACE_FILES } from '../handoff/formats.js';
import { checkpoint, runGit, type WorkspaceRepo } from '../handoff/git.js';
import { checkInitScript } from '../handoff/init-script.js';
import { initializerMessage } from './orientation.js';
import { outcomeOfInterruptedLoop, type RoleFinish, type RolePlan } from './plan.js';
import { rolePrompt } from './prompt-files.js';
import { boxOptions } from './sandbox.js';
import type { RoleSessionInput } from './types.js';

/** The initializer writes the feature list but never git internals or harness records. */
export const INITIALIZER_PROTECTED_PATHS = [WORKSPACE_FILES.harnessDir, '.git'];

/** Spec file names the harness looks for, in order, when the workspace does not name its spec. */
const SPEC_CANDIDATES = ['app_spec.md', 'app_spec.txt', 'spec.md', 'SPEC.md'];

/** Prepares an initializer session: the spec goes in verbatim; the output is checked when the model stops. */
export async function prepareInitializer(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
): Promise<RolePlan | RoleFinish> {
  const spec = await findSpec(repo);
  if (!spec) {
    return {
      outcome: 'failed',
      reason: `no spec found in the workspace (looked for ${SPEC_CANDIDATES.join(', ')})`,
      verdicts: [],
    };
  }
  const rules = {
    minFeatures: input.featureCount?.min ?? 1,
    ...(input.featureCount?.max ? { maxFeatures: input.featureCount.max } : {}),
  };
  let lastProblem: string | undefined;
  const check = async () => {
    lastProblem = await outputProblem(repo, rules);
    return lastProblem;
  };
  return {
    system: rolePrompt('initializer'),
    firstMessage: initializerMessage({
      specName: spec.name,
      specText: spec.text,
      ...(input.featureCount ? { featureCount: input.featureCount } : {}),
    }),
    tools: [...createFileTools(), createBashTool(boxOptions(input, 'bash'))],
    protectedPaths: INITIALIZER_PROTECTED_PATHS,
    featureListRules: { mayChangePasses: false, mayCreate: true },
    hooks: {
      beforeStop: async () => {
        const problem = await check();
        return problem
          ? { stop: false, message: `Your output is not valid yet:\n${problem}\nFix it, commit, then stop.` }
          : { stop: true };
      },
    },
    finish: async (result) => {
      const interrupted = outcomeOfInterruptedLoop(result);
      const problem = await check();
      if (interrupted && interrupted !== 'checkpointed')
        return { outcome: interrupted, ...(result.reason ? { reason: result.reason } : {}), verdicts: [] };
      if (problem) return { outcome: 'failed', reason: problem, verdicts: [] };
      await finalizeInitializer(input, repo, rules);
      return { outcome: 'completed', verdicts: [] };
    },
  };
}

async function findSpec(repo: WorkspaceRepo): Promise<{ name: string; text: string } | undefined> {
  for (const name of SPEC_CANDIDATES) {
    const text = await readFile(path.join(repo.dir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) return { name, text };
  }
  return undefined;
}

/** The exact problem with the initializer's output, meant to be sent back to the model; undefined when fine. */
async function outputProblem(
  repo: WorkspaceRepo,
  rules: { minFeatures: number; maxFeatures?: number },
): Promise<string | undefined> {
  const problems: string[] = [];
  const raw = await readFile(path.join(repo.dir, WORKSPACE_FILES.featureList), 'utf8').catch(() => undefined);
  if (raw === undefined) problems.push('feature_list.json is missing');
  else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      problems.push(`feature_list.json is not valid JSON: ${(error as Error).message}`);
    }
    if (parsed !== undefined) {
      const result = validateInitialFeatureList(parsed, rules);
      if (!result.ok) problems.push(result.error);
    }
  }
  const init = await checkInitScript(repo.dir);
  problems.push(...init.problems);
  return problems.length ? problems.join('\n') : undefined;
}

/** Assigns ids, makes `init.sh` executable, makes sure a progress log exists, commits. */
async function finalizeInitializer(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  rules: { minFeatures: number; maxFeatures?: number },
): Promise<void> {
  const raw = JSON.parse(await readFile(path.join(repo.dir, WORKSPACE_FILES.featureList), 'utf8'));
  const result = validateInitialFeatureList(raw, rules);
  if (result.ok && result.idsAssigned > 0) await writeFeatureList(repo.dir, result.list);
  await runGit(repo, ['update-index', '--chmod=+x', '--add', WORKSPACE_FILES.initScript]).catch(
    () => undefined,
  );
  const sha = await checkpoint(repo, {
    role: 'initializer',
    runId: input.runId,
    session: input.session,
    summary:
      result.ok && result.idsAssigned > 0
        ? `feature list: ${result.list.length} features, ids assigned`
        : 'initial workspace',
  });
  if (sha) input.onNotice?.({ type: 'checkpoint', sha, wip: false });
}
