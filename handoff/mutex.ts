import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';

const tails = new Map<string, Promise<unknown>>();
/** The repository locks the current async context holds (what makes the lock re-entrant). */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * Runs `fn` while holding the process-wide lock of one repository (keyed by its resolved path), so two
 * operations of this process never run git on the same repository at once. Re-entrant: code already holding
 * the lock (in its async context) runs at once, and `fn` learns so through `reentered`.
 */
export async function withRepoLock<T>(dir: string, fn: (reentered: boolean) => Promise<T>): Promise<T> {
  const key = path.resolve(dir);
  const mine = held.getStore();
  if (mine?.has(key)) return fn(true);
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => current);
  tails.set(key, tail);
  await previous;
  try {
    return await held.run(new Set([...(mine ?? []), key]), () => fn(false));
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
