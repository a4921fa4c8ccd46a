/** Real git repositories for the lane-merge tests: a committed base, files written, all removed after each test. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { checkpoint, ensureRepo, type WorkspaceRepo } from '../../../handoff/git.js';

const dirs: string[] = [];

/** Removes the repositories made by {@link repoWith} after each test of the calling file. */
export function cleanUpRepos(): void {
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
}

/** A new repository whose first commit holds `files`. */
export async function repoWith(files: Record<string, string>): Promise<WorkspaceRepo> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-lane-merge-'));
  dirs.push(dir);
  const repo = await ensureRepo(dir);
  write(repo, files);
  await checkpoint(repo, { role: 'harness', runId: 'r-test', session: 0, summary: 'base' });
  return repo;
}

/** Writes `files` (workspace-relative paths) into the repository's work tree. */
export function write(repo: WorkspaceRepo, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(repo.dir, file), text);
  }
}
