/**
 * The merge queue's lockfile regenerator (issue 29): `npm install --package-lock-only` on the merged manifest,
 * run like a generator's bash command — in the box, with the run's network policy (default `registries`), the
 * data dir hidden, `.git` read-only, no install scripts. Nothing the workspace controls runs on the host.
 */
import path from 'node:path';
import { createBashTool } from '../agent/tools/index.js';
import { boxOptions } from '../evaluation/session-box.js';
import type { LockfileRegenerator } from '../handoff/merge-rules.js';
import { type SandboxConfig, sandboxForRole } from '../orchestrator/config.js';

/** How long one regeneration may take (npm resolving a tree over the registry proxy). */
const REGENERATE_TIMEOUT_MS = 180_000;

/** A regenerator for the run `runId`'s merge step `session`, boxed like its generators' bash. */
export function boxedLockfileRegenerator(input: {
  runId: string;
  session: number;
  dataDir: string;
  sandbox: SandboxConfig;
}): LockfileRegenerator {
  const bash = createBashTool({
    ...boxOptions(
      {
        runId: input.runId,
        session: input.session,
        dataDir: input.dataDir,
        sandbox: sandboxForRole(input.sandbox, 'generator'),
      },
      'bash',
    ),
    readOnlyPaths: ['.git'],
  });
  return async (repo, lockfile) => {
    const dir = path.posix.dirname(lockfile);
    const command = `cd ${JSON.stringify(dir)} && npm install --package-lock-only --ignore-scripts --no-audit --no-fund`;
    try {
      const output = await bash.execute(
        { command, timeout_ms: REGENERATE_TIMEOUT_MS },
        {
          workspace: repo.dir,
          protectedPaths: ['.git'],
          signal: AbortSignal.timeout(REGENERATE_TIMEOUT_MS + 10_000),
        },
      );
      const exitCode = typeof output === 'string' ? null : output.details?.exitCode;
      if (exitCode === 0) return { ok: true };
      const text = typeof output === 'string' ? output : output.content;
      return { ok: false, reason: `npm exited ${String(exitCode)}: ${text.slice(-500)}` };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  };
}
