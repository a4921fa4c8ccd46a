/**
 * Which sandbox a workspace-controlled process gets. `auto` and `bubblewrap` both mean the box
 * (bubblewrap): where it cannot run, the process is refused with an error naming both fixes, never run on
 * the host. `none` is the explicit opt-out for machines or containers that are themselves the boundary:
 * a scrubbed environment and a private HOME/TMPDIR, nothing more.
 */
import { NightshiftError } from '../core/errors.js';
import { sandboxInfo } from './bubblewrap.js';

/** The wanted sandbox: `auto` (= bubblewrap, required), `bubblewrap`, or `none` (no box, explicit opt-out). */
export type SandboxChoice = 'auto' | 'bubblewrap' | 'none';

/** The sandbox in effect for one process. */
export type ResolvedSandbox =
  | { mode: 'bubblewrap'; bwrapPath: string; userNamespace: boolean }
  | { mode: 'none' };

/** The box is wanted but bubblewrap cannot run here. */
export class SandboxUnavailableError extends NightshiftError {
  constructor(reason: string) {
    super('SANDBOX_UNAVAILABLE', `the sandbox (bubblewrap) is required but not usable here: ${reason}`, {
      hint:
        'Install bubblewrap (`apt-get install bubblewrap`) and allow unprivileged user namespaces, or — only ' +
        'where the machine or container itself is the boundary — set "sandbox": { "bubblewrap": "off" } in ' +
        'nightshift.config.json.',
    });
  }
}

/** Resolves the choice; throws {@link SandboxUnavailableError} when the box is wanted and bwrap cannot run. */
export async function resolveSandbox(choice: SandboxChoice = 'auto'): Promise<ResolvedSandbox> {
  if (choice === 'none') return { mode: 'none' };
  const info = await sandboxInfo();
  if (!info.bubblewrap || !info.path) throw new SandboxUnavailableError(info.reason ?? 'bwrap not found');
  return { mode: 'bubblewrap', bwrapPath: info.path, userNamespace: info.userNamespace ?? false };
}
