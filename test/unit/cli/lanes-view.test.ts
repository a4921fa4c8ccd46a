// The lanes in the terminal and in the views' model: what each lane's step reads as (laneStep), the progress
// line's `lanes:` part and merge lines, and `status` text and `--json` of a run in lanes.
import { describe, expect, it } from 'vitest';
import { formatMergeNote } from '../../../cli/lanes-format.js';
import { createProgressRenderer, formatProgressLine, type ProgressUpdate } from '../../../cli/progress.js';
import { formatRunStatus, RunStatusJson, toRunStatusJson } from '../../../cli/status.js';
import { type LanesView, laneStep } from '../../../orchestrator/lanes/lane-view.js';
import type { LaneRecord } from '../../../orchestrator/lanes/lanes.js';
import { emptySession } from '../../../orchestrator/run/run-state.js';
import { featureState, makeRun, T0 } from '../orchestrator/fixtures.js';

const NOW = new Date('2026-01-01T01:00:00.000Z');

const lane = (number: number, seq: number, patch: Partial<LaneRecord> = {}): LaneRecord => ({
  lane: number,
  featureId: `F-00${number}`,
  branch: `nightshift/r-test/lane-${number}-F-00${number}`,
  seq,
  last: null,
  mergeSetbacks: 0,
  ...patch,
});

describe('laneStep', () => {
  const run = makeRun({ config: { lanes: 3 }, mainSeq: 9 });

  it('reads a session in flight, a queued job with the role its follow-up gives, and an ended job', () => {
    const running = { ...emptySession(7, 'j7', 'evaluator', T0.toISOString()), kind: 'evaluate' as const };
    expect(laneStep(run, lane(1, 7), featureState(1), running)).toMatchObject({
      kind: 'session',
      role: 'evaluator',
      seq: 7,
    });
    const generated = lane(1, 8, { last: { seq: 7, role: 'generator', outcome: 'completed' } });
    expect(laneStep(run, generated, featureState(1, { generatorSessions: 1 }), undefined)).toEqual({
      kind: 'queued',
      role: 'evaluator',
      seq: 8,
    });
    expect(laneStep(run, lane(1, 8), featureState(1), undefined)).toMatchObject({ role: 'generator' });
    const ended = lane(1, 8, { last: { seq: 8, role: 'generator', outcome: 'completed' } });
    expect(laneStep(run, ended, featureState(1), undefined)).toEqual({ kind: 'between' });
  });

  it('tells merging (the run slot took it) from waiting, and a merge that ended in an error from one running', () => {
    const pending = featureState(2, { mergePending: true });
    expect(laneStep(run, lane(2, 9), pending, undefined)).toEqual({ kind: 'merging', seq: 9 });
    expect(laneStep(run, lane(2, 6), pending, undefined)).toEqual({ kind: 'waiting-merge' });
    const failed = lane(2, 9, { last: { seq: 9, role: 'merge', outcome: 'error' } });
    expect(laneStep(run, failed, pending, undefined)).toEqual({ kind: 'waiting-merge' });
    // A lane whose generator resolved a conflict the queue sent back goes straight back to it: waiting, then merging.
    const resolved = {
      resolvingConflict: true,
      last: { seq: 6, role: 'generator' as const, outcome: 'completed' },
    };
    const unresolved = featureState(2, { generatorSessions: 1 });
    expect(laneStep(run, lane(2, 6, resolved), unresolved, undefined)).toEqual({ kind: 'waiting-merge' });
    expect(laneStep(run, lane(2, 9, resolved), unresolved, undefined)).toEqual({ kind: 'merging', seq: 9 });
  });
});

/** A lane as the view lists it (no job seq: the step has it). */
const busyLane = (number: number, mergeSetbacks = 0) => {
  const { seq: _seq, ...rest } = lane(number, 0, { mergeSetbacks });
  return rest;
};

const lanesView: LanesView = {
  configured: 4,
  lanes: [
    {
      ...busyLane(1),
      featureId: 'F-003',
      description: 'Add a task',
      step: {
        kind: 'session',
        role: 'generator',
        sessionKind: 'generate',
        seq: 12,
        startedAt: '2026-01-01T00:58:00.000Z',
        workerId: 'w1',
      },
      lastMerge: null,
    },
    {
      ...busyLane(2),
      featureId: 'F-004',
      description: 'Edit a task',
      step: {
        kind: 'session',
        role: 'evaluator',
        sessionKind: 'evaluate',
        seq: 13,
        startedAt: '2026-01-01T00:59:00.000Z',
        workerId: 'w2',
      },
      lastMerge: null,
    },
    {
      ...busyLane(3, 1),
      featureId: 'F-002',
      description: 'Delete a task',
      step: { kind: 'merging', seq: 14 },
      lastMerge: null,
    },
  ],
  merging: 3,
  waiting: [],
  recentMerges: [
    {
      at: T0.toISOString(),
      seq: 11,
      lane: 3,
      featureId: 'F-002',
      outcome: 'conflict',
      detail: 'conflicting files: src/app.ts',
      head: null,
      checked: [],
    },
  ],
};

const progress = (
  lanes: ProgressUpdate['lanes'],
  current: ProgressUpdate['current'] = null,
): ProgressUpdate => ({
  run: {
    id: 'r-1',
    status: 'building',
    pausedReason: null,
    features: { total: 10, passing: 3, failing: 7, blocked: 0 },
  },
  current,
  lanes,
  costUsd: 1.5,
  elapsedMs: 60_000,
});

describe('progress line with lanes', () => {
  it('shows every busy lane: feature and step, merging as `merging F-…`', () => {
    expect(formatProgressLine(progress(lanesView.lanes), NOW)).toBe(
      '[██████░░░░░░░░░░░░░░] 3/10 passing · lanes: 1 F-003 generator · 2 F-004 evaluator · 3 merging F-002 · $1.50 · 1m 00s',
    );
  });

  it('shows the run slot’s own session beside the lanes, and the status when nothing runs', () => {
    const sweep = {
      role: 'evaluator' as const,
      kind: 'regress' as const,
      featureIds: ['F-001'],
      startedAt: '2026-01-01T00:59:30.000Z',
    };
    expect(formatProgressLine(progress([lanesView.lanes[2]!], sweep), NOW)).toContain(
      '· evaluator (regression) F-001 (30s) · lanes: 3 merging F-002 ·',
    );
    expect(formatProgressLine(progress([]), NOW)).toContain('· building ·');
  });

  it('prints a new line in a log when a lane changes step, not per poll', () => {
    const out = {
      text: '',
      write(chunk: string) {
        out.text += chunk;
        return true;
      },
    };
    const renderer = createProgressRenderer({ stream: out, isTTY: false, now: () => NOW });
    const [first, second] = lanesView.lanes;
    renderer.update(progress([first!, second!]));
    renderer.update(progress([first!, second!]));
    renderer.update(progress([first!, { ...second!, step: { kind: 'waiting-merge' } }]));
    expect(
      out.text
        .trim()
        .split('\n')
        .map((line) => line.split(' · lanes: ')[1]),
    ).toEqual([
      '1 F-003 generator · 2 F-004 evaluator · $1.50 · 1m 00s',
      '1 F-003 generator · 2 F-004 waiting to merge · $1.50 · 1m 00s',
    ]);
  });

  it('says how each merge ended, in one line', () => {
    const merge = { lane: 2, featureId: 'F-004', detail: '', head: null, checked: [] as string[] };
    expect(
      formatMergeNote({ ...merge, outcome: 'merged', head: 'abcdef0123', checked: ['F-001', 'F-002'] }),
    ).toBe('merge queue: lane 2 · F-004 merged (head abcdef0, 2 check(s) green on the merged head)');
    expect(formatMergeNote({ ...merge, outcome: 'conflict', detail: 'conflicting files: a.ts, b.ts' })).toBe(
      'merge queue: lane 2 · F-004: conflict in a.ts, b.ts — back to a generator',
    );
    expect(formatMergeNote({ ...merge, outcome: 'rejected', detail: 'F-001: list empty' })).toBe(
      'merge queue: lane 2 · F-004: rejected, red checks on the merged head: F-001: list empty — back to a generator',
    );
    expect(formatMergeNote({ ...merge, outcome: 'error', detail: 'git lock' })).toContain(
      'merge error: git lock',
    );
  });
});

describe('status of a run in lanes', () => {
  const run = makeRun({ config: { lanes: 4 } });
  const details = { run, lastSession: undefined, next: null, workers: 2, lanes: lanesView, now: NOW };

  it('has a lanes section: the merge queue, each lane (free ones too), the last merge', () => {
    const text = formatRunStatus(details);
    expect(text).toMatch(/lanes\s+2 of 4 busy · 1 waiting to merge · merge queue merging lane 3 \(F-002\)\n/);
    expect(text).toMatch(
      /lane 1\s+F-003 generator \(session 12, running for 2m 00s, worker w1\) · nightshift\/r-test\/lane-1-F-001\n/,
    );
    expect(text).toMatch(
      /lane 3\s+F-002 merging \(job 14\) · nightshift\/r-test\/lane-3-F-003 · 1 merge setback\(s\)\n/,
    );
    expect(text).toMatch(/lane 4\s+free\n/);
    expect(text).toMatch(/last merge\s+lane 3 · F-002: conflict in src\/app\.ts — back to a generator/);
    expect(text).toMatch(/next\s+each busy lane goes on with its feature/);
  });

  it('lists a lane above the configured ones whose feature waits for the merge queue (pipelined lanes)', () => {
    const waitingLane = {
      ...busyLane(6),
      featureId: 'F-009',
      description: '',
      step: { kind: 'waiting-merge' as const },
      lastMerge: null,
    };
    const view = { ...lanesView, lanes: [...lanesView.lanes, waitingLane], waiting: [6] };
    const text = formatRunStatus({ ...details, lanes: view });
    expect(text).toMatch(
      /lanes\s+2 of 4 busy · 2 waiting to merge · merge queue merging lane 3 \(F-002\), waiting: lane 6\n/,
    );
    expect(text).toMatch(/lane 4\s+free\nlane 6\s+F-009 waiting to merge/);
  });

  it('lists the lanes in --json (null for a serial run), keeping every other field', () => {
    const json = toRunStatusJson(run, details);
    expect(RunStatusJson.parse(json).lanes).toEqual(lanesView);
    expect(Object.keys(json)).toEqual(Object.keys(RunStatusJson.shape));
    expect(toRunStatusJson(makeRun()).lanes).toBeNull();
    expect(formatRunStatus({ ...details, run: makeRun(), lanes: null })).not.toMatch(/^lane/m);
  });
});
