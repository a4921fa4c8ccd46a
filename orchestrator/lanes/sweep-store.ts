/**
 * The run store's write of a full sweep (lanes mode, workers/full-sweep.ts), one compare-and-set like every change of
 * a run: the green checks count as checked, each feature whose merge broke a check goes back to failing (its next
 * merge replays that check too), and the sweep's counters restart.
 */
import { z } from 'zod';
import type { RunEvent } from '../events.js';
import { casUpdateRun } from '../run/run-cas.js';
import { type FeatureState, type RunRecord, summarizeFeatures } from '../run/run-state.js';
import type { RunStore } from '../run/run-store.js';

/** What a full sweep found. */
export const FullSweepResult = z.object({
  /** The run branch's head after the sweep (its feedback committed). */
  head: z.string(),
  /** Features whose checks replayed green. */
  green: z.array(z.string()),
  /** Checks replayed. */
  checked: z.number().int().nonnegative(),
  /** Each red check (`victim`) and the feature sent back for it: the one whose merge broke it, else its own. */
  sentBack: z.array(z.object({ featureId: z.string(), victim: z.string(), failure: z.string() })),
  /** The sweep could not run (the app or git failed): counted as run, nothing checked, the green head kept. */
  error: z.string().optional(),
  /** How long the sweep took, bisect included (spaces the next one: `mergeChecks.fullSweepMaxShare`). */
  durationMs: z.number().nonnegative().optional(),
});
export type FullSweepResult = z.infer<typeof FullSweepResult>;

/** The sweep's red checks by the feature sent back for them. */
export function sentBackByFeature(
  sentBack: FullSweepResult['sentBack'],
): Map<string, FullSweepResult['sentBack']> {
  const byFeature = new Map<string, FullSweepResult['sentBack']>();
  for (const entry of sentBack)
    byFeature.set(entry.featureId, [...(byFeature.get(entry.featureId) ?? []), entry]);
  return byFeature;
}

/** Records a full sweep's result at `seq` (see the module comment). Returns the run as written. */
export async function recordFullSweep(
  store: RunStore,
  runId: string,
  seq: number,
  input: FullSweepResult,
  now: Date,
): Promise<RunRecord> {
  const result = FullSweepResult.parse(input);
  const at = now.toISOString();
  const events: RunEvent[] = [];
  const run = await casUpdateRun(
    store.redis,
    store.keys(runId),
    runId,
    { features: true },
    (current, features) => {
      events.length = 0;
      const changed = new Map<string, FeatureState>();
      const green = new Set(result.green);
      for (const feature of features)
        if (green.has(feature.id) && feature.passes)
          changed.set(feature.id, { ...feature, lastCheckedSeq: seq });
      for (const [featureId, entries] of sentBackByFeature(result.sentBack)) {
        const feature = changed.get(featureId) ?? features.find((candidate) => candidate.id === featureId);
        if (!feature || feature.blocked) continue;
        const victims = entries.map((entry) => entry.victim).filter((victim) => victim !== featureId);
        changed.set(featureId, {
          ...feature,
          passes: false,
          mergePending: false,
          attempts: feature.attempts + 1,
          regressions: feature.regressions + 1,
          generatorSessions: 0,
          lastCheckedSeq: seq,
          replayOnMerge: [...new Set([...feature.replayOnMerge, ...victims])],
        });
        const issues = entries.map((entry) => `the full sweep found ${entry.victim} red: ${entry.failure}`);
        events.push({ type: 'feature.regressed', runId, at, seq, featureId, issues });
      }
      const counters = {
        ...current.counters,
        passesSinceLastRegression: 0,
        sweeps: current.counters.sweeps + 1,
        regressions: current.counters.regressions + events.length,
        fullSweep: {
          mergesSince: 0,
          at,
          greenHead:
            result.sentBack.length === 0 && !result.error
              ? result.head
              : current.counters.fullSweep.greenHead,
          durationMs: result.durationMs ?? null,
        },
      };
      const next = features.map((feature) => changed.get(feature.id) ?? feature);
      return {
        run: { ...current, counters, features: summarizeFeatures(next), updatedAt: at },
        features: [...changed.values()],
      };
    },
  );
  for (const event of events) await store.appendEvent(runId, event);
  return run;
}
