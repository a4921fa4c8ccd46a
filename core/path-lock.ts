import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';

const tails = new Map<string, Promise<unknown>>();
/** The path locks the current async context holds (what makes the lock re-entrant). */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * Runs `fn` while holding this process's lock of one path (keyed by its resolved form), so two operations of this
 * process never work on it at once. Re-entrant: code already holding the lock (in its async context) runs at once,
 * and `fn` learns so through `reentered`. Other processes are not excluded.
 */
export async function withPathLock<T>(target: string, fn: (reentered: boolean) => Promise<T>): Promise<T> {
  const key = path.resolve(target);
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
