/**
 * How replays of recorded checks are counted (issue 31): each batch (a sweep, a gate's replay, a merged head's
 * check, a full sweep's replays) is told to a listener as a tally of where it ran and which checks held; the worker
 * logs it as a `check.replayed` run event and the metrics count those.
 */
import { z } from 'zod';
import type { ReplayResult } from '../checks/replay.js';
import { moduleLogger } from '../core/log.js';

const log = moduleLogger('evaluation/replay-tally');

/**
 * Where recorded checks are replayed (the `where` of the replay metrics): the merge queue's check of a merged head,
 * a regression session's replay-first sweep, the pass gate's replay of a freshly recorded check, the scheduled full
 * sweep (its bisect probes included).
 */
export const ReplaySite = z.enum(['merge', 'sweep', 'gate', 'full_sweep']);
export type ReplaySite = z.infer<typeof ReplaySite>;

/** One batch of replays as it is counted: where it ran, the features whose check held and those whose went red. */
export const ReplayTally = z.object({
  where: ReplaySite,
  passed: z.array(z.string()),
  failed: z.array(z.string()),
});
export type ReplayTally = z.infer<typeof ReplayTally>;

/** Told a batch's final results, one per check (a red check's second try on an app of its own is not another). */
export type ReplayListener = (results: readonly ReplayResult[]) => void | Promise<void>;

/** The tally of a batch of replays that ran at `where`. */
export function tallyReplays(where: ReplaySite, results: readonly ReplayResult[]): ReplayTally {
  return {
    where,
    passed: results.filter((result) => result.ok).map((result) => result.featureId),
    failed: results.filter((result) => !result.ok).map((result) => result.featureId),
  };
}

/** Tells `listener` (if any) the batch's results; a listener that fails is logged, never the replays' failure. */
export async function reportReplays(
  listener: ReplayListener | undefined,
  results: readonly ReplayResult[],
): Promise<void> {
  if (!listener || results.length === 0) return;
  try {
    await listener(results);
  } catch (error) {
    log.warn({ err: error }, 'could not report the replays');
  }
}
