import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { harnessGitEnv } from '../../../handoff/git-env.js';
import { UnsafeFileError } from '../../../handoff/safe-fs.js';

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

/** A workspace and, beside it, a directory holding one file (`content`) the workspace may point at. */
export function workspaceBesideOutside(
  prefix: string,
  content: string,
  fileName = 'outside.txt',
): { workspace: string; outside: string; outsideFile: string; cleanup: () => void } {
  const temp = tempDir(prefix);
  const root = realpathSync(temp.dir);
  const workspace = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  const outsideFile = path.join(outside, fileName);
  writeFileSync(outsideFile, content);
  return { workspace, outside, outsideFile, cleanup: temp.cleanup };
}

/** The UnsafeFileError `promise` rejects with (the test fails when it resolves or rejects otherwise). */
export async function unsafeFileRefusal(promise: Promise<unknown>): Promise<UnsafeFileError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UnsafeFileError);
  return error as UnsafeFileError;
}

/**
 * For a test file: the machine's git config hidden for the whole file ({@link isolateGitConfig}), and a list of
 * cleanups that run after each test (push a temp dir's cleanup onto it).
 */
export function isolatedGitFile(): Array<() => void> {
  let restoreConfig: () => void = () => {};
  beforeAll(() => {
    restoreConfig = isolateGitConfig();
  });
  afterAll(() => restoreConfig());
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  return cleanups;
}
