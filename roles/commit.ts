/**
 * How sessions commit: `.git` is read-only inside the sandbox, so the `commit` tool asks the harness, which
 * commits with its own git (handoff/git-commit.ts). A bash command that fails on the read-only `.git` (the
 * model ran `git commit`, `git stash`, `git checkout -b`) gets a one-line hint saying so.
 */
import { type Tool, ToolError } from '../agent/tool.js';
import { createCommitTool } from '../agent/tools/index.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import { commitWork, NothingToCommitError, ProtectedChangeError } from '../handoff/git-commit.js';
import type { RoleSessionInput } from './types.js';

/** Author of the commits sessions make (the harness's own commits are by `nightshift`). */
export const AGENT_IDENTITY = { name: 'nightshift agent', email: 'agent@nightshift.localhost' };

/** The hint added to a bash result that failed on the read-only `.git`. */
export const READ_ONLY_GIT_HINT =
  'hint: .git is read-only here: commit with the `commit` tool; history cannot be rewritten (no amend, reset of commits, stash, rebase or new branches).';

/** The `commit` tool of a session: everything staged, the agent's identity, the session's trailers. */
export function sessionCommitTool(
  input: Pick<RoleSessionInput, 'role' | 'runId' | 'session' | 'featureIds' | 'onNotice'>,
  repo: WorkspaceRepo,
  protectedPaths: readonly string[],
): Tool {
  const featureId = input.role === 'generator' ? input.featureIds[0] : undefined;
  return createCommitTool(async (message) => {
    try {
      const result = await commitWork(repo, {
        message,
        identity: AGENT_IDENTITY,
        info: {
          role: input.role,
          runId: input.runId,
          session: input.session,
          ...(featureId ? { featureId } : {}),
        },
        protectedPaths: protectedPaths.filter((p) => p !== '.git'),
      });
      input.onNotice?.({ type: 'checkpoint', sha: result.sha, wip: false });
      return { sha: result.shortSha, files: result.files.map((file) => `${file.status} ${file.path}`) };
    } catch (error) {
      if (error instanceof NothingToCommitError || error instanceof ProtectedChangeError) {
        throw new ToolError(error.describe());
      }
      throw error;
    }
  }) as unknown as Tool;
}

/** A write refused by the read-only bind of `.git` (a rename of the mount point reports it busy). */
const REFUSED = '(?:Read-only file system|Device or resource busy)';
const READ_ONLY_GIT_ERROR = new RegExp(
  `\\.git\\b[^\\n]*${REFUSED}|${REFUSED}[^\\n]*\\.git\\b|(?:could not|unable to) (?:lock|write|create)[^\\n]*\\.git|unable to create temporary file: ${REFUSED}`,
  'i',
);

/** True when a bash result shows a write refused on the read-only `.git`. */
export function failedOnReadOnlyGit(content: string): boolean {
  return /^exit code: (?!0\b)/m.test(content) && READ_ONLY_GIT_ERROR.test(content);
}

/** Wraps `bash` so a command that failed on the read-only `.git` carries {@link READ_ONLY_GIT_HINT}. */
export function withReadOnlyGitHint(bash: Tool): Tool {
  return {
    ...bash,
    async execute(args, ctx) {
      const output = await bash.execute(args, ctx);
      const result = typeof output === 'string' ? { content: output } : output;
      if (!failedOnReadOnlyGit(result.content)) return output;
      return { ...result, content: `${result.content}\n${READ_ONLY_GIT_HINT}` };
    },
  };
}
