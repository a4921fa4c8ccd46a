import path from 'node:path';

const tails = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` while holding the process-wide lock of one repository (keyed by its resolved path), so two
 * operations of this process never run git on the same repository at once. Not re-entrant: code holding
 * the lock must call the unlocked variants.
 */
export async function withRepoLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const key = path.resolve(dir);
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => current);
  tails.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
