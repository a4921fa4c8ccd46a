import { describe, expect, it } from 'vitest';
import { fullSweepDue, MAIN_SLOT, nextLaneActions } from '../../../orchestrator/lanes/lane-scheduler.js';
import { laneBranch } from '../../../orchestrator/lanes/lanes.js';
import { featureState, makeState, T0 } from '../orchestrator/fixtures.js';

const sweep = (mergesSince: number, at: string | null = null, durationMs: number | null = null) => ({
  fullSweep: { mergesSince, at, greenHead: null, durationMs },
});
const minutes = (count: number) => new Date(T0.getTime() + count * 60_000);

describe('the scheduled full sweep (lanes mode)', () => {
  it('is due after fullSweepEveryMerges merges, or fullSweepEveryMinutes with a merge since, never without one', () => {
    const config = { lanes: 2, mergeChecks: { fullSweepEveryMerges: 3, fullSweepEveryMinutes: 10 } };
    const run = (mergesSince: number, at: string | null = null) =>
      makeState([featureState(1)], { config, counters: sweep(mergesSince, at) }).run;
    expect(fullSweepDue(run(2), minutes(1))).toBe(false);
    expect(fullSweepDue(run(3), minutes(1))).toBe(true);
    expect(fullSweepDue(run(1), minutes(10))).toBe(true);
    expect(fullSweepDue(run(1, minutes(5).toISOString()), minutes(10))).toBe(false);
    expect(fullSweepDue(run(0), minutes(600))).toBe(false);
  });

  it('waits after a long sweep so that sweeps due by merges take at most fullSweepMaxShare of the time', () => {
    const config = {
      lanes: 4,
      mergeChecks: { fullSweepEveryMerges: 8, fullSweepEveryMinutes: 20, fullSweepMaxShare: 0.25 },
    };
    // The last sweep ended at minute 0 and took 2 minutes: the next waits 6 minutes, however many merges came.
    const run = (mergesSince: number, durationMs: number | null) =>
      makeState([featureState(1)], { config, counters: sweep(mergesSince, T0.toISOString(), durationMs) })
        .run;
    expect(fullSweepDue(run(30, 120_000), minutes(5))).toBe(false);
    expect(fullSweepDue(run(30, 120_000), minutes(6))).toBe(true);
    expect(fullSweepDue(run(7, 120_000), minutes(19))).toBe(false);
    // The minutes bound holds whatever the last sweep took: nothing stays unchecked for long.
    expect(fullSweepDue(run(1, 3_600_000), minutes(20))).toBe(true);
    // A short sweep (or none recorded) leaves the merges' count in charge, as before.
    expect(fullSweepDue(run(8, 2_000), minutes(1))).toBe(true);
    expect(fullSweepDue(run(8, null), minutes(0))).toBe(true);
  });

  it('runs before the waiting merges when due, in the same step of the run slot', () => {
    const features = [
      featureState(1, { passes: true }),
      featureState(2, { mergePending: true }),
      featureState(3),
    ];
    const lane = {
      lane: 1,
      featureId: 'F-002',
      branch: laneBranch('r-test', 1, 'F-002'),
      seq: 11,
      last: null,
      mergeSetbacks: 0,
    };
    const state = makeState(features, { config: { lanes: 2 }, counters: sweep(8), lanes: [lane] });
    const plan = nextLaneActions(state, minutes(1), new Set());
    expect(plan.kind === 'work' && plan.actions[0]).toEqual({
      slot: MAIN_SLOT,
      action: { kind: 'merge', lanes: [{ lane: 1, featureId: 'F-002' }], fullSweep: true },
    });
  });

  it('comes before the run is declared done, and the run finishes once it ran', () => {
    const features = [
      featureState(1, { passes: true, lastCheckedSeq: 9 }),
      featureState(2, { passes: true, lastCheckedSeq: 9 }),
    ];
    const after = makeState(features, { config: { lanes: 2 }, counters: { ...sweep(1), lastPassSeq: 9 } });
    expect(nextLaneActions(after, minutes(1), new Set())).toEqual({
      kind: 'work',
      actions: [{ slot: MAIN_SLOT, action: { kind: 'merge', lanes: [], fullSweep: true } }],
    });
    const swept = makeState(features, { config: { lanes: 2 }, counters: { ...sweep(0), lastPassSeq: 9 } });
    expect(nextLaneActions(swept, minutes(1), new Set())).toEqual({
      kind: 'run',
      action: { kind: 'finish' },
    });
  });
});
