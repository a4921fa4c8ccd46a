import type { Tool } from '../agent/tool.js';
import { createBashTool, createFileTools } from '../agent/tools/index.js';
import { readCheckFile } from '../checks/store.js';
import { boxOptions } from '../evaluation/session-box.js';
import { freePort } from '../handoff/app-runner.js';
import { readFeatureList } from '../handoff/feature-list.js';
import { readFeedback } from '../handoff/feedback.js';
import { WORKSPACE_FILES } from '../handoff/formats.js';
import { checkpoint, commitsSince, head, isClean, type WorkspaceRepo } from '../handoff/git.js';
import { restoreProtectedPaths } from '../handoff/git-commit.js';
import { UnsafeFileError } from '../handoff/safe-fs.js';
import { AskedQuestion, answersText, askHumanTool, commitQuestionsFile, endWhenAsked } from './ask-human.js';
import { sessionCommitTool, withReadOnlyGitHint } from './commit.js';
import { sprintContract } from './contract.js';
import { humanNotesText } from './human-notes.js';
import { generatorMessage } from './orientation.js';
import { outcomeOfInterruptedLoop, type PreparedSession, type RoleFinish } from './prepared-session.js';
import { rolePrompt } from './prompt-files.js';
import { findSpec } from './spec-file.js';
import { specSectionFor } from './spec-section.js';
import type { RoleSessionInput } from './types.js';
import { snapshotWorkspace } from './workspace-state.js';

/** Paths a generator may read but never write: the harness owns them. */
export const GENERATOR_PROTECTED_PATHS = [WORKSPACE_FILES.featureList, WORKSPACE_FILES.harnessDir, '.git'];

/** Prepares a generator session on the one feature the harness chose. */
export async function prepareGenerator(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
): Promise<PreparedSession | RoleFinish> {
  const featureId = input.featureIds[0];
  const features = await readFeatureList(repo.dir);
  const feature = features.find((candidate) => candidate.id === featureId);
  if (!feature) {
    return {
      outcome: 'failed',
      reason: `feature ${featureId ?? '(none)'} is not in feature_list.json`,
      verdicts: [],
    };
  }
  const startCommit = (await head(repo)) as string;
  const [feedback, snapshot, spec, appPort, checkFile] = await Promise.all([
    readFeedback(repo.dir, feature.id).catch((error: unknown) => {
      if (error instanceof UnsafeFileError) return `[the feedback file was not read: ${error.message}]`;
      throw error;
    }),
    snapshotWorkspace(repo),
    findSpec(repo),
    freePort(),
    // An unreadable check file leaves the contract to the steps (the sweep reports the file itself).
    readCheckFile(repo.dir, feature.id).catch(() => null),
  ]);
  const specFile = spec && 'text' in spec ? spec : undefined;
  const section = specFile ? specSectionFor(specFile.text, feature) : undefined;
  const asked = new AskedQuestion();
  const answers = answersText(input.questions, feature.id);
  return {
    system: rolePrompt('generator'),
    firstMessage: generatorMessage({
      feature,
      feedback,
      humanNotes: humanNotesText(input.humanNotes?.[feature.id]),
      snapshot,
      remainingFailing: features.filter((candidate) => !candidate.passes).length,
      appPort,
      ...(specFile && section ? { specSection: { file: specFile.name, ...section } } : {}),
      contract: sprintContract(feature, checkFile),
      ...(answers ? { answers } : {}),
    }),
    tools: [...generatorTools(input, repo), ...askHumanTool(input, asked)],
    protectedPaths: GENERATOR_PROTECTED_PATHS,
    featureListRules: { mayChangePasses: false, mayCreate: false },
    hooks: {
      beforeTurn: endWhenAsked(asked),
      beforeStop: async () => {
        const problem = await uncommittedWork(repo, startCommit);
        return problem ? { stop: false, message: problem } : { stop: true };
      },
    },
    finish: (result) => finishGenerator(input, repo, { startCommit, asked }, result),
  };
}

/** The generator's tools: files, boxed bash that cannot write the harness's files, and `commit`. */
function generatorTools(input: RoleSessionInput, repo: WorkspaceRepo): Tool[] {
  return [
    ...createFileTools(),
    withReadOnlyGitHint(
      createBashTool({
        ...boxOptions(input, 'bash'),
        readOnlyPaths: [WORKSPACE_FILES.featureList, WORKSPACE_FILES.harnessDir, '.git'],
      }),
    ),
    sessionCommitTool(input, repo, GENERATOR_PROTECTED_PATHS),
  ];
}

/** Why the generator may not stop yet, or undefined when the tree is clean and it committed. */
async function uncommittedWork(repo: WorkspaceRepo, startCommit: string): Promise<string | undefined> {
  if (!(await isClean(repo))) {
    return 'Your working tree has uncommitted changes. Append a note to progress.md, then call the `commit` tool (message "<feature id>: …"), then stop.';
  }
  if ((await commitsSince(repo, startCommit)).length === 0) {
    return 'You have not committed anything in this session. Implement the feature, append a progress note and call the `commit` tool before you stop.';
  }
  return undefined;
}

async function finishGenerator(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  { startCommit, asked }: { startCommit: string; asked: AskedQuestion },
  result: Parameters<PreparedSession['finish']>[0],
): Promise<RoleFinish> {
  const interrupted = outcomeOfInterruptedLoop(result);
  // The feature list is the integrity guard's; the harness's records are put back here, before the WIP commit.
  const restored = await restoreProtectedPaths(repo, [WORKSPACE_FILES.harnessDir]);
  const violations = restored ? [restored] : [];
  const wip = await checkpoint(repo, {
    role: 'generator',
    runId: input.runId,
    session: input.session,
    featureId: input.featureIds[0],
    summary: interrupted ? `work in progress (${result.reason ?? result.outcome})` : 'uncommitted leftovers',
    wip: true,
  });
  if (wip) input.onNotice?.({ type: 'checkpoint', sha: wip, wip: true });
  // The questions and answers so far go into the history (the harness's commit, after the session's own).
  await commitQuestionsFile(input, repo, asked);
  if (interrupted)
    return {
      outcome: interrupted,
      ...(result.reason ? { reason: result.reason } : {}),
      verdicts: [],
      violations,
      ...(asked.question ? { askedQuestion: asked.question.id } : {}),
    };
  const commits = await commitsSince(repo, startCommit);
  if (commits.length === 0)
    return { outcome: 'failed', reason: 'the generator made no change', verdicts: [], violations };
  return {
    outcome: 'completed',
    ...(result.reason ? { reason: result.reason } : {}),
    verdicts: [],
    violations,
  };
}
