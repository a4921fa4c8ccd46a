import type { AgentResult } from '../agent/loop.js';
import { createBashTool, createFileTools } from '../agent/tools/index.js';
import { checkAppAfterInit, readAppStartNote } from '../evaluation/app-check.js';
import { boxOptions } from '../evaluation/session-box.js';
import { validateInitialFeatureList, writeFeatureList } from '../handoff/feature-list.js';
import { WORKSPACE_FILES } from '../handoff/formats.js';
import { checkpoint, runGit, type WorkspaceRepo } from '../handoff/git.js';
import { restoreProtectedPaths } from '../handoff/git-commit.js';
import { checkInitScript } from '../handoff/init-script.js';
import { readWorkspaceText, UnsafeFileError } from '../handoff/safe-fs.js';
import { sessionCommitTool, withReadOnlyGitHint } from './commit.js';
import { initializerMessage } from './orientation.js';
import { outcomeOfInterruptedLoop, type PreparedSession, type RoleFinish } from './prepared-session.js';
import { rolePrompt } from './prompt-files.js';
import { findSpec, SPEC_CANDIDATES } from './spec-file.js';
import type { RoleSessionInput } from './types.js';

/** The initializer writes the feature list but never git internals or harness records. */
export const INITIALIZER_PROTECTED_PATHS = [WORKSPACE_FILES.harnessDir, '.git'];

/** Prepares an initializer session: the spec goes in verbatim; the output is checked when the model stops. */
export async function prepareInitializer(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
): Promise<PreparedSession | RoleFinish> {
  const spec = await findSpec(repo);
  if (!spec || 'problem' in spec) {
    return {
      outcome: 'failed',
      reason: spec?.problem ?? `no spec found in the workspace (looked for ${SPEC_CANDIDATES.join(', ')})`,
      verdicts: [],
    };
  }
  const rules = {
    minFeatures: input.featureCount?.min ?? 1,
    ...(input.featureCount?.max ? { maxFeatures: input.featureCount.max } : {}),
  };
  const appStartNote = await readAppStartNote(repo);
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
      ...(appStartNote ? { appStartNote } : {}),
    }),
    tools: [
      ...createFileTools(),
      withReadOnlyGitHint(createBashTool({ ...boxOptions(input, 'bash'), readOnlyPaths: ['.git'] })),
      sessionCommitTool(input, repo, INITIALIZER_PROTECTED_PATHS),
    ],
    protectedPaths: INITIALIZER_PROTECTED_PATHS,
    featureListRules: { mayChangePasses: false, mayCreate: true },
    hooks: {
      beforeStop: async () => {
        const problem = await check();
        return problem
          ? {
              stop: false,
              message: `Your output is not valid yet:\n${problem}\nFix it, call \`commit\`, then stop.`,
            }
          : { stop: true };
      },
    },
    finish: (result) => finishInitializer(input, repo, rules, result, check),
  };
}

/**
 * Closes an initializer session: an interrupted loop ends as it ended; otherwise the output must be valid, the
 * harness records are put back, the feature list is finalised and the app it described must start.
 */
async function finishInitializer(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  rules: { minFeatures: number; maxFeatures?: number },
  result: AgentResult,
  check: () => Promise<string | undefined>,
): Promise<RoleFinish> {
  const interrupted = outcomeOfInterruptedLoop(result);
  const problem = await check();
  if (interrupted && interrupted !== 'checkpointed')
    return { outcome: interrupted, ...(result.reason ? { reason: result.reason } : {}), verdicts: [] };
  if (problem) return { outcome: 'failed', reason: problem, verdicts: [] };
  const restored = await restoreProtectedPaths(repo, [WORKSPACE_FILES.harnessDir]);
  const violations = restored ? { violations: [restored] } : {};
  await finalizeInitializer(input, repo, rules);
  // The app it described must start: the next initializer session gets the log when it does not.
  const app = input.startAppAfterInit ? await checkAppAfterInit(input, repo) : { ok: true as const };
  if (!app.ok)
    return { outcome: 'failed', reason: app.reason, verdicts: [], appStart: app.failure, ...violations };
  return { outcome: 'completed', verdicts: [], ...violations };
}

/** The feature list's text, null when missing; a file the harness refuses to read is a problem for the model. */
async function featureListText(repo: WorkspaceRepo): Promise<string | null | { problem: string }> {
  try {
    return await readWorkspaceText(repo.dir, WORKSPACE_FILES.featureList);
  } catch (error) {
    if (error instanceof UnsafeFileError) return { problem: error.message };
    throw error;
  }
}

/** The exact problem with the initializer's output, meant to be sent back to the model; undefined when fine. */
async function outputProblem(
  repo: WorkspaceRepo,
  rules: { minFeatures: number; maxFeatures?: number },
): Promise<string | undefined> {
  const problems: string[] = [];
  const raw = await featureListText(repo);
  if (raw === null) problems.push('feature_list.json is missing');
  else if (typeof raw !== 'string') problems.push(raw.problem);
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
  try {
    problems.push(...(await checkInitScript(repo.dir)).problems);
  } catch (error) {
    if (!(error instanceof UnsafeFileError)) throw error;
    problems.push(error.message);
  }
  return problems.length ? problems.join('\n') : undefined;
}

/** Assigns ids, makes `init.sh` executable, makes sure a progress log exists, commits. */
async function finalizeInitializer(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  rules: { minFeatures: number; maxFeatures?: number },
): Promise<void> {
  const raw = JSON.parse((await readWorkspaceText(repo.dir, WORKSPACE_FILES.featureList)) ?? 'null');
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
