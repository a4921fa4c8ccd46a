import { describe, expect, it } from 'vitest';
import { type LaneSchedule, MAIN_SLOT, nextLaneActions } from '../../../orchestrator/lanes/lane-scheduler.js';
import { type LaneRecord, laneBranch } from '../../../orchestrator/lanes/lanes.js';
import { featureState, makeState, T0 } from '../orchestrator/fixtures.js';

const lane = (n: number, featureId: string, patch: Partial<LaneRecord> = {}): LaneRecord => ({
  lane: n,
  featureId,
  branch: laneBranch('r-test', n, featureId),
  seq: 10 + n,
  last: null,
  mergeSetbacks: 0,
  ...patch,
});

const actions = (plan: LaneSchedule) => (plan.kind === 'work' ? plan.actions : []);

describe('nextLaneActions (pure)', () => {
  it('fills every free lane with the next failing features in list order', () => {
    const state = makeState(
      [1, 2, 3, 4, 5].map((n) => featureState(n)),
      { config: { lanes: 3 } },
    );
    expect(actions(nextLaneActions(state, T0, new Set()))).toEqual([
      { slot: 1, action: { kind: 'generate', featureId: 'F-001' }, assign: true },
      { slot: 2, action: { kind: 'generate', featureId: 'F-002' }, assign: true },
      { slot: 3, action: { kind: 'generate', featureId: 'F-003' }, assign: true },
    ]);
  });

  it('starts a feature only once its depends_on pass on the run branch (a pass waiting to merge is not enough)', () => {
    const features = [
      featureState(1, { mergePending: true }),
      featureState(2, { depends_on: ['F-001'] }),
      featureState(3),
    ];
    const state = makeState(features, { config: { lanes: 4 }, lanes: [lane(1, 'F-001')] });
    const planned = actions(nextLaneActions(state, T0, new Set()));
    expect(planned).toContainEqual({
      slot: MAIN_SLOT,
      action: { kind: 'merge', lanes: [{ lane: 1, featureId: 'F-001' }] },
    });
    expect(planned.map((a) => ('featureId' in a.action ? a.action.featureId : ''))).not.toContain('F-002');
    expect(planned).toContainEqual({
      slot: 2,
      action: { kind: 'generate', featureId: 'F-003' },
      assign: true,
    });
  });

  it('merges every waiting lane in one step of the run slot (a train), and not while the run slot is busy', () => {
    const features = [
      featureState(1, { mergePending: true }),
      featureState(2, { mergePending: true }),
      featureState(3),
    ];
    const state = makeState(features, {
      config: { lanes: 3 },
      lanes: [lane(1, 'F-001'), lane(2, 'F-002'), lane(3, 'F-003')],
    });
    expect(actions(nextLaneActions(state, T0, new Set([3])))).toEqual([
      {
        slot: MAIN_SLOT,
        action: {
          kind: 'merge',
          lanes: [
            { lane: 1, featureId: 'F-001' },
            { lane: 2, featureId: 'F-002' },
          ],
        },
      },
    ]);
    expect(actions(nextLaneActions(state, T0, new Set([MAIN_SLOT, 3])))).toEqual([]);
  });

  it('puts the lane sent back most often first in the train, so it does not keep losing the race', () => {
    const features = [featureState(1, { mergePending: true }), featureState(2, { mergePending: true })];
    const state = makeState(features, {
      config: { lanes: 2 },
      lanes: [lane(1, 'F-001'), lane(2, 'F-002', { mergeSetbacks: 2 })],
    });
    const [merge] = actions(nextLaneActions(state, T0, new Set()));
    expect(merge?.action).toEqual({
      kind: 'merge',
      lanes: [
        { lane: 2, featureId: 'F-002' },
        { lane: 1, featureId: 'F-001' },
      ],
    });
  });

  it('a lane whose generator resolved a conflict goes straight back to the merge queue, first, with no evaluator', () => {
    const resolved = { resolvingConflict: true, mergeSetbacks: 1 };
    const features = [
      featureState(1, { mergePending: true }),
      featureState(2, { generatorSessions: 1 }),
      featureState(3, { generatorSessions: 1 }),
    ];
    const state = makeState(features, {
      config: { lanes: 3 },
      lanes: [
        lane(1, 'F-001'),
        lane(2, 'F-002', { ...resolved, last: { seq: 12, role: 'generator', outcome: 'completed' } }),
        // Still resolving (its generator failed): a generator again, not a merge.
        lane(3, 'F-003', { ...resolved, last: { seq: 13, role: 'generator', outcome: 'failed' } }),
      ],
    });
    expect(actions(nextLaneActions(state, T0, new Set()))).toEqual([
      {
        slot: MAIN_SLOT,
        action: {
          kind: 'merge',
          lanes: [
            { lane: 2, featureId: 'F-002' },
            { lane: 1, featureId: 'F-001' },
          ],
        },
      },
      { slot: 3, action: { kind: 'generate', featureId: 'F-003' } },
    ]);
    // The merge queue busy: the resolved lane waits for it rather than starting an evaluator.
    expect(actions(nextLaneActions(state, T0, new Set([MAIN_SLOT])))).toEqual([
      { slot: 3, action: { kind: 'generate', featureId: 'F-003' } },
    ]);
    // Without the flag (a red merge sent it back), a completed generator is evaluated as before.
    const evaluated = makeState(features, {
      config: { lanes: 3 },
      lanes: [lane(2, 'F-002', { last: { seq: 12, role: 'generator', outcome: 'completed' } })],
    });
    expect(actions(nextLaneActions(evaluated, T0, new Set([MAIN_SLOT])))).toContainEqual({
      slot: 2,
      action: { kind: 'evaluate', featureId: 'F-002' },
    });
  });

  it('follows each lane up on its own: generator done → evaluate, failed → generate, sent back by the merge queue → generate', () => {
    const features = [
      featureState(1, { generatorSessions: 1 }),
      featureState(2, { lastVerdict: 'fail', attempts: 1 }),
      featureState(3, { lastVerdict: 'pass', generatorSessions: 0 }),
      featureState(4, { generatorSessions: 1 }),
    ];
    const state = makeState(features, {
      config: { lanes: 4 },
      lanes: [
        lane(1, 'F-001', { last: { seq: 5, role: 'generator', outcome: 'completed' } }),
        lane(2, 'F-002', { last: { seq: 6, role: 'evaluator', outcome: 'completed' } }),
        lane(3, 'F-003', { last: { seq: 7, role: 'merge', outcome: 'conflict' } }),
        lane(4, 'F-004', { last: { seq: 8, role: 'generator', outcome: 'completed' } }),
      ],
    });
    expect(actions(nextLaneActions(state, T0, new Set([4])))).toEqual([
      { slot: 1, action: { kind: 'evaluate', featureId: 'F-001' } },
      { slot: 2, action: { kind: 'generate', featureId: 'F-002' } },
      { slot: 3, action: { kind: 'generate', featureId: 'F-003' } },
    ]);
  });

  it('a lane waiting for the merge queue frees its place: the next features start on lanes N+1…2N meanwhile', () => {
    const features = [
      featureState(1, { mergePending: true }),
      featureState(2, { mergePending: true }),
      featureState(3),
      featureState(4),
      featureState(5),
    ];
    const state = makeState(features, { config: { lanes: 2 }, lanes: [lane(1, 'F-001'), lane(2, 'F-002')] });
    // The merge queue busy with both: two lanes work on F-003 and F-004, F-005 waits for a place.
    expect(actions(nextLaneActions(state, T0, new Set([MAIN_SLOT, 1, 2])))).toEqual([
      { slot: 3, action: { kind: 'generate', featureId: 'F-003' }, assign: true },
      { slot: 4, action: { kind: 'generate', featureId: 'F-004' }, assign: true },
    ]);
    // Every lane number taken (2 at work, 2 waiting): nothing more starts until a merge frees one.
    const full = makeState(
      features.map((feature, index) => (index < 4 ? { ...feature, mergePending: true } : feature)),
      {
        config: { lanes: 2 },
        lanes: [lane(1, 'F-001'), lane(2, 'F-002'), lane(3, 'F-003'), lane(4, 'F-004')],
      },
    );
    expect(actions(nextLaneActions(full, T0, new Set([MAIN_SLOT])))).toEqual([]);
  });

  it('lanes the merge queue sent back never make more than N sessions at once', () => {
    const features = [
      featureState(1, { generatorSessions: 1 }),
      featureState(2, { generatorSessions: 1 }),
      featureState(3, { lastVerdict: 'pass' }),
      featureState(4),
    ];
    const sentBack = { last: { seq: 7, role: 'merge' as const, outcome: 'rejected' }, mergeSetbacks: 1 };
    const state = makeState(features, {
      config: { lanes: 2 },
      lanes: [lane(1, 'F-001'), lane(2, 'F-002'), lane(3, 'F-003', sentBack)],
    });
    // Lanes 1 and 2 in a session: lane 3 waits for one of them to end; F-004 gets no lane (3 hold a feature).
    expect(actions(nextLaneActions(state, T0, new Set([1, 2])))).toEqual([]);
    expect(actions(nextLaneActions(state, T0, new Set([1])))).toEqual([
      { slot: 3, action: { kind: 'generate', featureId: 'F-003' } },
    ]);
  });

  it('finishes only once no lane holds a feature and nothing is in flight; initializes alone', () => {
    const passing = [
      featureState(1, { passes: true, lastCheckedSeq: 9 }),
      featureState(2, { passes: true, lastCheckedSeq: 9 }),
    ];
    const done = makeState(passing, { config: { lanes: 2 }, counters: { lastPassSeq: 9 } });
    expect(nextLaneActions(done, T0, new Set())).toEqual({ kind: 'run', action: { kind: 'finish' } });
    expect(nextLaneActions(done, T0, new Set([1]))).toEqual({ kind: 'work', actions: [] });
    const empty = makeState([], { config: { lanes: 3 } });
    expect(actions(nextLaneActions(empty, T0, new Set()))).toEqual([
      { slot: MAIN_SLOT, action: { kind: 'initialize' } },
    ]);
  });

  it('pauses every lane at once on a budget, and scales the stuck limit with the lanes', () => {
    const features = [1, 2, 3].map((n) => featureState(n));
    const spent = makeState(features, {
      config: { lanes: 3, budgets: { maxCostUsd: 1 } },
      counters: { costUsd: 2 },
    });
    expect(nextLaneActions(spent, T0, new Set([1, 2]))).toMatchObject({
      kind: 'run',
      action: { kind: 'pause', reason: 'budget' },
    });
    const busyLanes = makeState(features, {
      config: { lanes: 3 },
      counters: { evaluationsSinceLastPass: 6 },
    });
    expect(nextLaneActions(busyLanes, T0, new Set()).kind).toBe('work');
    const stuck = makeState(features, { config: { lanes: 3 }, counters: { evaluationsSinceLastPass: 18 } });
    expect(nextLaneActions(stuck, T0, new Set())).toMatchObject({ kind: 'run', action: { reason: 'stuck' } });
  });

  it('a seeded simulation of 4 lanes always ends with every feature passing and never two jobs on one slot', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = seededRandom(seed);
      let state = simulatedRun(9, 3, 4);
      let seq = 0;
      for (let step = 0; step < 500; step++) {
        const plan = nextLaneActions(state, T0, new Set());
        if (plan.kind === 'run') {
          expect(plan.action.kind).toBe('finish');
          break;
        }
        const slots = plan.actions.map((a) => a.slot);
        expect(new Set(slots).size).toBe(slots.length);
        state = simulate(state, plan.actions, () => ++seq, next);
        if (step === 499) throw new Error(`seed ${seed} did not finish`);
      }
      expect(state.features.every((f) => f.passes)).toBe(true);
    }
  });
});

describe('nextLaneActions with jobs that take time (seeded)', () => {
  it('never runs more than N lane sessions at once, pipelines past waiting merges, and always finishes', () => {
    let pipelined = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const next = seededRandom(seed);
      let state = simulatedRun(12, 4, 3);
      let seq = 0;
      // Jobs in flight by slot: each ends after 1–3 steps; a merge also holds the lanes it merges.
      const inFlight = new Map<number, { planned: ReturnType<typeof actions>[number]; left: number }>();
      for (let step = 0; ; step++) {
        if (step === 2_000) throw new Error(`seed ${seed} did not finish`);
        const busy = new Set<number>();
        for (const [slot, job] of inFlight) {
          busy.add(slot);
          if (job.planned.action.kind === 'merge')
            for (const entry of job.planned.action.lanes) busy.add(entry.lane);
        }
        const plan = nextLaneActions(state, T0, busy);
        if (plan.kind === 'run') {
          expect(plan.action.kind).toBe('finish');
          break;
        }
        for (const planned of plan.actions) {
          expect(busy.has(planned.slot), `seed ${seed}: slot ${planned.slot} planned while busy`).toBe(false);
          expect(planned.slot).toBeLessThanOrEqual(6);
          if (planned.slot > 3) pipelined += 1;
          if (planned.assign && 'featureId' in planned.action) {
            const lanes = [...state.run.lanes, lane(planned.slot, planned.action.featureId, { seq: ++seq })];
            state = { ...state, run: { ...state.run, lanes } };
          }
          inFlight.set(planned.slot, {
            planned: { ...planned, assign: false },
            left: 1 + Math.floor(next() * 3),
          });
        }
        const sessions = [...inFlight.keys()].filter((slot) => slot !== MAIN_SLOT).length;
        expect(sessions, `seed ${seed}: lane sessions at once`).toBeLessThanOrEqual(3);
        for (const [slot, job] of [...inFlight]) {
          job.left -= 1;
          if (job.left > 0) continue;
          inFlight.delete(slot);
          state = simulate(state, [job.planned], () => ++seq, next);
        }
      }
      expect(state.features.every((f) => f.passes)).toBe(true);
    }
    // Lanes above N took features while others waited to merge.
    expect(pipelined).toBeGreaterThan(0);
  });
});

/** A Park–Miller generator from `seed`: the simulations' draws, the same on every run. */
function seededRandom(seed: number): () => number {
  let random = seed;
  return () => {
    random = (random * 48_271) % 2_147_483_647;
    return random / 2_147_483_647;
  };
}

/** `features` failing features, every `dependentEvery`-th after the first depending on F-001, with `lanes` lanes. */
function simulatedRun(features: number, dependentEvery: number, lanes: number) {
  return makeState(
    Array.from({ length: features }, (_, i) =>
      featureState(i + 1, i > 0 && i % dependentEvery === 0 ? { depends_on: ['F-001'] } : {}),
    ),
    { config: { lanes } },
  );
}

/** Applies planned actions as instant sessions: generators complete; evaluations pass 70 %; merges conflict 20 %. */
function simulate(
  state: ReturnType<typeof makeState>,
  planned: ReturnType<typeof actions>,
  nextSeq: () => number,
  random: () => number,
): ReturnType<typeof makeState> {
  const features = state.features.map((f) => ({ ...f }));
  const byId = new Map(features.map((f) => [f.id, f]));
  let lanes = [...state.run.lanes];
  const counters = { ...state.run.counters };
  for (const { slot, action, assign } of planned) {
    const seq = nextSeq();
    if (action.kind === 'merge') {
      for (const entry of action.lanes) {
        const feature = byId.get(entry.featureId)!;
        feature.mergePending = false;
        if (random() < 0.2) {
          const last = { seq, role: 'merge' as const, outcome: 'conflict' };
          lanes = lanes.map((l) => (l.lane === entry.lane ? { ...l, last } : l));
        } else {
          Object.assign(feature, { passes: true, lastCheckedSeq: seq });
          counters.lastPassSeq = seq;
          lanes = lanes.filter((l) => l.lane !== entry.lane);
        }
      }
      continue;
    }
    if (action.kind === 'regress') {
      for (const id of action.featureIds) Object.assign(byId.get(id)!, { lastCheckedSeq: seq });
      continue;
    }
    if (action.kind === 'initialize') continue;
    const feature = byId.get(action.featureId)!;
    if (assign)
      lanes.push({ lane: slot, featureId: feature.id, branch: 'b', seq, last: null, mergeSetbacks: 0 });
    if (action.kind === 'generate') {
      feature.generatorSessions += 1;
      lanes = lanes.map((l) =>
        l.lane === slot ? { ...l, last: { seq, role: 'generator' as const, outcome: 'completed' } } : l,
      );
    } else {
      const pass = random() < 0.7;
      Object.assign(feature, {
        generatorSessions: 0,
        lastVerdict: pass ? 'pass' : 'fail',
        mergePending: pass,
      });
      lanes = lanes.map((l) =>
        l.lane === slot ? { ...l, last: { seq, role: 'evaluator' as const, outcome: 'completed' } } : l,
      );
    }
  }
  return { run: { ...state.run, lanes, counters }, features };
}
