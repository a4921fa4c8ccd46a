import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listProcesses, processCwd } from '../box/proc.js';
import { moduleLogger } from '../core/log.js';
import { removeWorkspaceFile } from './safe-fs.js';

const log = moduleLogger('handoff/git-lock');

/** Lock files git leaves behind when it is killed mid-operation. */
async function lockFiles(gitDir: string): Promise<string[]> {
  const fixed = ['index.lock', 'HEAD.lock', 'packed-refs.lock', 'config.lock'].map((f) =>
    path.join(gitDir, f),
  );
  let refLocks: string[] = [];
  try {
    const heads = path.join(gitDir, 'refs', 'heads');
    refLocks = (await readdir(heads)).filter((f) => f.endsWith('.lock')).map((f) => path.join(heads, f));
  } catch {
    // no refs/heads yet
  }
  const present = await Promise.all(
    [...fixed, ...refLocks].map(async (file) => ((await ageMs(file)) === null ? null : file)),
  );
  return present.filter((file): file is string => file !== null);
}

async function ageMs(file: string): Promise<number | null> {
  try {
    return Date.now() - (await stat(file)).mtimeMs;
  } catch {
    return null;
  }
}

/** True when some git process (other than ours, which the repo mutex excludes) works in this repository. */
export async function liveGitInRepo(repoDir: string): Promise<boolean> {
  const root = path.resolve(repoDir);
  for (const proc of listProcesses()) {
    if (proc.state === 'Z' || !proc.comm.startsWith('git')) continue;
    const cwd = processCwd(proc.pid);
    if (cwd !== null && (cwd === root || cwd.startsWith(`${root}${path.sep}`))) return true;
  }
  return false;
}

/**
 * Removes lock files left by a killed git: a lock is stale when no live git process works in the repository,
 * or when it is older than `staleAfterMs` (a hung git). A lock held by a live git is waited for, up to that age.
 * Returns the removed files. Call it while holding the repository's mutex.
 */
export async function recoverStaleLocks(repoDir: string, staleAfterMs: number): Promise<string[]> {
  const gitDir = path.join(repoDir, '.git');
  const removed: string[] = [];
  for (;;) {
    const locks = await lockFiles(gitDir);
    if (locks.length === 0) return removed;
    const live = await liveGitInRepo(repoDir);
    let waiting = false;
    for (const lock of locks) {
      const age = await ageMs(lock);
      if (age === null) continue;
      if (live && age < staleAfterMs) {
        waiting = true;
        continue;
      }
      // Below a real `.git` only: a `refs/heads` turned into a link must not aim the removal elsewhere.
      await removeWorkspaceFile(repoDir, path.relative(repoDir, lock));
      removed.push(lock);
      log.warn({ lock, ageMs: Math.round(age), liveGit: live }, 'removed a stale git lock');
    }
    if (!waiting) return removed;
    await sleep(100);
  }
}
