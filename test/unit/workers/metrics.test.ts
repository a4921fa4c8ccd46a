import { describe, expect, it } from 'vitest';
import { RunEvent } from '../../../orchestrator/events.js';
import { NightshiftMetrics } from '../../../workers/metrics.js';

const base = { runId: 'r-1', at: '2026-05-01T03:12:04.120Z' };

/** `where/result` → count of `nightshift_check_replays_total`. */
async function replays(metrics: NightshiftMetrics): Promise<Record<string, number>> {
  const metric = await metrics.registry.getSingleMetric('nightshift_check_replays_total')?.get();
  return Object.fromEntries(
    (metric?.values ?? []).map(({ labels, value }) => [`${labels.where}/${labels.result}`, value]),
  );
}

describe('replays of recorded checks in the metrics', () => {
  it('counts every replay by where it ran and its result, the merge queue once', async () => {
    const metrics = new NightshiftMetrics();
    const events: RunEvent[] = [
      // A regression session: two checks held, one went red; its pass gate then replays the re-recorded check.
      {
        type: 'check.replayed',
        ...base,
        seq: 3,
        where: 'sweep',
        passed: ['F-001', 'F-002'],
        failed: ['F-003'],
      },
      { type: 'check.replayed', ...base, seq: 3, where: 'gate', passed: [], failed: ['F-003'] },
      { type: 'check.replayed', ...base, seq: 3, where: 'gate', passed: ['F-003'], failed: [] },
      // A merge train taken apart: red together, then each lane alone (one green, one red).
      { type: 'check.replayed', ...base, seq: 5, where: 'merge', passed: [], failed: ['F-001'] },
      { type: 'check.replayed', ...base, seq: 5, where: 'merge', passed: ['F-001', 'F-004'], failed: [] },
      { type: 'check.replayed', ...base, seq: 5, where: 'merge', passed: [], failed: ['F-001'] },
      // The merge results name the checks again: not counted a second time.
      {
        type: 'lane.merge',
        ...base,
        seq: 5,
        lane: 1,
        featureId: 'F-004',
        outcome: 'merged',
        detail: '',
        head: 'abc',
        checked: ['F-001', 'F-004'],
      },
      {
        type: 'lane.merge',
        ...base,
        seq: 5,
        lane: 2,
        featureId: 'F-005',
        outcome: 'rejected',
        detail: 'F-001: recorded check v1 failed',
        head: null,
        checked: [],
      },
      // A full sweep and its bisect probe.
      { type: 'check.replayed', ...base, seq: 6, where: 'full_sweep', passed: ['F-002'], failed: ['F-001'] },
      { type: 'check.replayed', ...base, seq: 6, where: 'full_sweep', passed: [], failed: ['F-001'] },
    ];
    for (const event of events) metrics.observe(event);
    expect(await replays(metrics)).toEqual({
      'sweep/pass': 2,
      'sweep/fail': 1,
      'gate/pass': 1,
      'gate/fail': 1,
      'merge/pass': 2,
      'merge/fail': 2,
      'full_sweep/pass': 1,
      'full_sweep/fail': 2,
    });
    const merges = await metrics.registry.getSingleMetric('nightshift_merges_total')?.get();
    expect(merges?.values.map(({ labels, value }) => [labels.outcome, value])).toEqual([
      ['merged', 1],
      ['rejected', 1],
    ]);
    expect(await metrics.text()).toContain(
      'nightshift_check_replays_total{where="full_sweep",result="fail"} 2',
    );
  });

  it('the event schema keeps where and the features, and refuses a place it does not know', () => {
    const parsed = RunEvent.parse({
      type: 'check.replayed',
      ...base,
      seq: 2,
      where: 'gate',
      passed: ['F-001'],
      failed: [],
    });
    expect(parsed).toMatchObject({ where: 'gate', passed: ['F-001'] });
    expect(() =>
      RunEvent.parse({ type: 'check.replayed', ...base, seq: 2, where: 'lane', passed: [], failed: [] }),
    ).toThrow();
  });
});
