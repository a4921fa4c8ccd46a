import { describe, expect, it } from 'vitest';
import { stalledIntervalFromEnv } from '../../cli/worker.js';
import type { StoredRunEvent } from '../../orchestrator/events.js';
import { emptySession } from '../../orchestrator/run/run-state.js';
import { overlappingIntervals, overlappingSessions } from './helpers.js';

// The e2e tests' overlap checks must be able to fail: here they are fed histories that overlap.
const at = '2026-01-01T00:00:00.000Z';
const started = (seq: number, workerId: string): StoredRunEvent => ({
  id: `${seq}-0`,
  event: {
    type: 'session.started',
    runId: 'r-1',
    at,
    seq,
    jobId: `r-1-${seq}`,
    role: 'generator',
    featureIds: [],
    workerId,
  },
});
const finished = (seq: number): StoredRunEvent => ({
  id: `${seq}-1`,
  event: {
    type: 'session.finished',
    runId: 'r-1',
    at,
    seq,
    role: 'generator',
    featureIds: [],
    outcome: 'completed',
    reason: null,
    costUsd: 0,
    durationMs: 1,
  },
});

describe('overlappingSessions (event log)', () => {
  it('accepts sequential sessions and the restart of a killed worker’s session', () => {
    const events = [started(1, 'a'), finished(1), started(2, 'a'), started(2, 'b'), finished(2)];
    expect(overlappingSessions(events, new Set(['a']))).toEqual([]);
  });

  it('reports a session started while another ran, and a killed session that was not restarted', () => {
    expect(overlappingSessions([started(1, 'a'), started(2, 'b'), finished(2)], new Set())).toEqual([
      'session 2 (b) started while 1 (a) ran',
    ]);
    expect(overlappingSessions([started(1, 'a'), started(2, 'b'), finished(2)], new Set(['a']))).toEqual([
      'session 1 of a killed worker was not restarted: 2 came next',
    ]);
  });
});

describe('overlappingIntervals (session records)', () => {
  it('reports finished sessions whose times overlap', () => {
    const one = {
      ...emptySession(1, 'r-1-1', 'generator', '2026-01-01T00:00:00Z'),
      finishedAt: '2026-01-01T00:01:00Z',
    };
    const two = {
      ...emptySession(2, 'r-1-2', 'evaluator', '2026-01-01T00:00:30Z'),
      finishedAt: '2026-01-01T00:02:00Z',
    };
    expect(overlappingIntervals([one, two])).toHaveLength(1);
    expect(overlappingIntervals([one, { ...two, startedAt: '2026-01-01T00:01:00Z' }])).toEqual([]);
  });
});

describe('NIGHTSHIFT_STALLED_INTERVAL_MS', () => {
  it('sets the worker’s stalled-job interval, and refuses nonsense', () => {
    expect(stalledIntervalFromEnv({})).toEqual({});
    expect(stalledIntervalFromEnv({ NIGHTSHIFT_STALLED_INTERVAL_MS: '2000' })).toEqual({
      stalledIntervalMs: 2000,
    });
    expect(() => stalledIntervalFromEnv({ NIGHTSHIFT_STALLED_INTERVAL_MS: 'soon' })).toThrow(
      /NIGHTSHIFT_STALLED_INTERVAL_MS/,
    );
  });
});
