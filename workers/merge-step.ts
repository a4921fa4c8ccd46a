/** The merge queue's step as a session job: a full sweep when due, then a merge train, each recorded in one step. */
import { moduleLogger } from '../core/log.js';
import { inSpan } from '../core/trace.js';
import { recordMergeResults } from '../orchestrator/lanes/lane-store.js';
import { recordFullSweep } from '../orchestrator/lanes/sweep-store.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { fullSweep } from './full-sweep.js';
import { type MergeContext, mergeLanes } from './merge-train.js';
import type { NightshiftMetrics } from './metrics.js';

const log = moduleLogger('workers/merge-step');

/** What a merge step needs of the worker. */
export interface MergeStepDeps extends MergeContext {
  orchestrator: Orchestrator;
  /** Counts the merges and their time, when the worker serves metrics. */
  metrics?: Pick<NightshiftMetrics, 'mergeFinished'>;
}

/** A merge-queue step: a full sweep first when due, then merge, check the merged head, record each in one step. */
export async function runMerge(
  given: MergeStepDeps,
  runId: string,
  seq: number,
  step: { lanes: number[]; fullSweep: boolean },
) {
  const { orchestrator } = given;
  const deps = { ...given, onReplayed: given.onReplayed ?? logReplays(orchestrator) };
  if (step.fullSweep) {
    const before = await orchestrator.store.loadState(runId);
    const sweepStarted = orchestrator.now().getTime();
    // A sweep that cannot run must not hold up the merges, nor be retried forever: it counts, with its error.
    const sweeping = inSpan('full_sweep', { 'nightshift.run_id': runId, 'nightshift.session.seq': seq }, () =>
      fullSweep(deps, before, seq),
    );
    const swept = await sweeping.catch((error: unknown) => {
      log.error({ err: error, runId, seq }, 'the full sweep failed');
      const message = error instanceof Error ? error.message : String(error);
      return { head: '', green: [], checked: 0, sentBack: [], error: message.split('\n')[0] ?? 'failed' };
    });
    const durationMs = Math.max(0, orchestrator.now().getTime() - sweepStarted);
    await recordFullSweep(orchestrator.store, runId, seq, { ...swept, durationMs }, orchestrator.now());
  }
  const state = await orchestrator.store.loadState(runId);
  const lanes = state.run.lanes.filter((lane) => step.lanes.includes(lane.lane) && lane.seq === seq);
  if (lanes.length === 0) return;
  const started = orchestrator.now().getTime();
  const attributes = {
    'nightshift.run_id': runId,
    'nightshift.session.seq': seq,
    'nightshift.lanes': step.lanes,
  };
  const results = await inSpan('merge', attributes, async () => {
    const merged = await mergeLanes(deps, state, lanes, seq);
    await recordMergeResults(orchestrator.store, runId, seq, merged, orchestrator.now());
    return merged;
  });
  const seconds = (orchestrator.now().getTime() - started) / 1000;
  for (const result of results) deps.metrics?.mergeFinished(seconds, result.outcome);
}

/** Appends each batch of the queue's replays to the run's log as a `check.replayed` event (the metrics count it). */
function logReplays(orchestrator: Orchestrator): NonNullable<MergeContext['onReplayed']> {
  return async (runId, seq, tally) => {
    const at = orchestrator.now().toISOString();
    await orchestrator.store.appendEvent(runId, { type: 'check.replayed', runId, at, seq, ...tally });
  };
}
