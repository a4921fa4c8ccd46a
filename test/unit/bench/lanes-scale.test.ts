import { describe, expect, it } from 'vitest';
import { LanesRun } from '../../../bench/lanes.js';
import { type LanesScaleResult, lanesScaleSection, lanesScaleTargetRow } from '../../../bench/lanes-scale.js';

function run(features: number, sessions: number, commands: number, status = 'done'): LanesRun {
  return LanesRun.parse({
    lanes: 4,
    status,
    passing: status === 'done' ? features : features - 1,
    wallMs: features * 4_000,
    sessions,
    peakConcurrentSessions: 4,
    merges: { merged: features, conflict: 0, rejected: 0, error: 0 },
    commitsLost: 0,
    modelRequests: sessions * 3,
    redis: { commands, outputBytes: commands * 200 },
    mergeQueueMs: features * 1_000,
    replays: { merge: features * 2, full_sweep: features * 10 },
  });
}

function result(small: LanesRun, large: LanesRun): LanesScaleResult {
  return {
    lanes: 4,
    latencyMs: 1_500,
    sizes: [
      { features: 24, run: small },
      { features: 200, run: large },
    ],
  };
}

describe('the 200-feature lanes row', () => {
  it('is met when the large run is done and commands per session grew less than the features', () => {
    const [row] = lanesScaleTargetRow(result(run(24, 50, 50_000), run(200, 420, 840_000)));
    expect(row?.met).toBe(true);
    expect(row?.measured).toContain('done 200/200');
    expect(row?.measured).toContain('2000 vs 1000 (2×)');
    expect(row?.measured).toContain('merge queue 25 % of it');
  });

  it('is missed when commands per session grew faster than the features', () => {
    const [row] = lanesScaleTargetRow(result(run(24, 50, 5_000), run(200, 420, 840_000)));
    expect(row?.measured).toContain('(20×)');
    expect(row?.met).toBe(false);
  });

  it('is missed when the large run did not finish', () => {
    const [row] = lanesScaleTargetRow(result(run(24, 50, 50_000), run(200, 420, 840_000, 'incomplete')));
    expect(row?.met).toBe(false);
  });

  it('has no row and no section without figures, and a row per size in the section', () => {
    expect(lanesScaleTargetRow(undefined)).toEqual([]);
    expect(lanesScaleSection(undefined, '')).toBe('');
    const section = lanesScaleSection(result(run(24, 50, 50_000), run(200, 420, 840_000)), '0.5');
    expect(section).toContain('| 200 | done 200/200 | 13.3 min | 420 | 25 % |');
    expect(section).toContain('merge 400, full_sweep 2000');
  });
});
