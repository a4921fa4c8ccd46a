import { withPathLock } from '../core/path-lock.js';

/**
 * Runs `fn` while holding the process-wide lock of one repository (keyed by its resolved path), so two
 * operations of this process never run git on the same repository at once. Re-entrant: code already holding
 * the lock (in its async context) runs at once, and `fn` learns so through `reentered`.
 */
export function withRepoLock<T>(dir: string, fn: (reentered: boolean) => Promise<T>): Promise<T> {
  return withPathLock(dir, fn);
}
