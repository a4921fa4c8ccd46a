/**
 * A session's tools wait for its backup mirror (roles/session.ts refreshes it while the first model request is in
 * flight), so a session that can write never changes the workspace before a mirror holds its start commit.
 */
import type { Tool } from '../agent/tool.js';

/** The tools, each waiting for the backup mirror before it runs (any of them may write the workspace). */
export function afterBackup(tools: Tool[], backup: Promise<void>): Tool[] {
  return tools.map(
    (tool): Tool => ({
      ...tool,
      execute: async (args, context) => {
        await untilBackedUp(backup, context.signal);
        return tool.execute(args, context);
      },
    }),
  );
}

/**
 * The backup, or the session's stop, whichever comes first (a stuck backup must not hold a tool or a shutdown); a
 * backup already done wins over a stop, so a stopped session still closes its work the usual way. The stop's
 * listener goes once either is settled: a session makes hundreds of tool calls on one signal.
 */
export function untilBackedUp(backup: Promise<void>, signal: AbortSignal): Promise<void> {
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  stopped.catch(() => undefined);
  // Both settled already: the reactions run in this order, so the backup's result is taken.
  return Promise.race([backup, stopped]).finally(() => {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  });
}
