import type { WorkspaceRepo } from '../handoff/git.js';
import { readWorkspaceText, UnsafeFileError } from '../handoff/safe-fs.js';

/** Spec file names the harness looks for, in order, when the workspace does not name its spec. */
export const SPEC_CANDIDATES = ['app_spec.md', 'app_spec.txt', 'spec.md', 'SPEC.md'];

/** The spec goes whole into the first message: a larger file is refused (the run's own check allows 512 KiB). */
const MAX_SPEC_READ = 1024 * 1024;

/** The workspace's spec (name and text), a problem reading it, or undefined when there is none. */
export async function findSpec(
  repo: WorkspaceRepo,
): Promise<{ name: string; text: string } | { problem: string } | undefined> {
  for (const name of SPEC_CANDIDATES) {
    try {
      const text = await readWorkspaceText(repo.dir, name, { maxBytes: MAX_SPEC_READ });
      if (text !== null) return { name, text };
    } catch (error) {
      if (error instanceof UnsafeFileError) return { problem: `the spec cannot be read: ${error.message}` };
      throw error;
    }
  }
  return undefined;
}
