import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { harnessGitEnv } from '../../../handoff/git-env.js';

/** A temp dir removed by the returned cleanup. */
export function tempDir(prefix = 'ns-handoff-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Hides the machine's global git config (HOME points at an empty dir) for the test file, so tests prove the
 * harness never relies on a global identity, as on CI.
 */
export function isolateGitConfig(): () => void {
  const home = tempDir('ns-home-');
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = home.dir;
  delete process.env.XDG_CONFIG_HOME;
  return () => {
    process.env.HOME = saved.HOME;
    if (saved.XDG_CONFIG_HOME !== undefined) process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
    home.cleanup();
  };
}

/** Runs git the way a session's shell would (its own identity), returning trimmed stdout. */
export function agentGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=agent', '-c', 'user.email=agent@example.invalid', ...args], {
    cwd,
    env: harnessGitEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}
