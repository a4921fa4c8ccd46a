import { z } from 'zod';
import { defineTool, type Tool } from '../tool.js';

/** Arguments of `commit`. */
export const CommitArgs = z.object({
  message: z
    .string()
    .trim()
    .min(1, 'a commit message is required')
    .describe(
      'Commit message: a subject line (e.g. "F-003: add the todo counter"), optionally a blank line and a body.',
    ),
});
/** Arguments of `commit`. */
export type CommitArgs = z.infer<typeof CommitArgs>;

/** What a committer reports back: the new commit and the files it changed (`M app.js`, `A src/x.ts`). */
export interface CommitReceipt {
  sha: string;
  files: string[];
}

/**
 * Makes the commit. Supplied by the caller (the harness commits; the tool only carries the request): it throws
 * an error the model can act on when there is nothing to commit or a change is not allowed.
 */
export type Committer = (message: string) => Promise<CommitReceipt>;

/** Most changed files listed in the result (the rest are counted). */
const LISTED_FILES = 40;

/**
 * The `commit` tool: commits every change in the workspace through the caller's committer. It exists because
 * `.git` is read-only to `bash`: the repository is changed only by the harness.
 */
export function createCommitTool(commit: Committer): Tool<typeof CommitArgs> {
  return defineTool({
    name: 'commit',
    description:
      'Commit all changes in the workspace (like `git add -A && git commit`; .gitignore respected) with your message. ' +
      'This is the only way to commit: `.git` is read-only to bash. Returns the new commit and the files it changed.',
    parameters: CommitArgs,
    async execute(args) {
      const { message } = CommitArgs.parse(args);
      const receipt = await commit(message);
      const listed = receipt.files.slice(0, LISTED_FILES);
      const more = receipt.files.length - listed.length;
      return {
        content: [
          `committed ${receipt.sha} (${receipt.files.length} file${receipt.files.length === 1 ? '' : 's'}):`,
          ...listed,
          ...(more > 0 ? [`… and ${more} more`] : []),
        ].join('\n'),
        details: { sha: receipt.sha, files: receipt.files.length },
      };
    },
  });
}
