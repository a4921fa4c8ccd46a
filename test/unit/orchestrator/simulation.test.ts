import { describe, expect, it } from 'vitest';
import type { VerdictValue } from '../../../handoff/formats.js';
import { applySessionResult } from '../../../orchestrator/run/apply-result.js';
import { emptySession, type RunState, type SessionRecord } from '../../../orchestrator/run/run-state.js';
import { type NextAction, nextAction } from '../../../orchestrator/scheduler.js';
import type { SessionOutcome, SessionResult } from '../../../roles/session-result.js';
import { feature, makeState, result, T0, verdict } from './fixtures.js';

/** Deterministic PRNG (mulberry32) so a failing seed can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface World {
  /** Chance that a generator's work is right (the evaluator then passes it). */
  quality: number;
  random: () => number;
}

function pick<T>(random: () => number, weighted: Array<[T, number]>): T {
  let roll = random() * weighted.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [value, weight] of weighted) {
    roll -= weight;
    if (roll <= 0) return value;
  }
  return weighted[weighted.length - 1]?.[0] as T;
}

/** The session a scripted world produces for an action. */
function play(
  action: NextAction,
  seq: number,
  world: World,
): { res: SessionResult; features?: ReturnType<typeof feature>[] } {
  const { random, quality } = world;
  switch (action.kind) {
    case 'initialize':
      return {
        res: result('initializer', []),
        features: Array.from({ length: 12 }, (_, i) => feature(i + 1)),
      };
    case 'generate': {
      const outcome = pick<SessionOutcome>(random, [
        ['completed', 70],
        ['checkpointed', 20],
        ['failed', 4],
        ['rate_limited', 3],
        ['aborted', 3],
      ]);
      return { res: result('generator', [action.featureId], { outcome }) };
    }
    case 'evaluate':
    case 'regress': {
      const ids = action.kind === 'evaluate' ? [action.featureId] : action.featureIds;
      const mode = action.kind === 'evaluate' ? 'evaluate' : 'regression';
      const verdicts = ids.flatMap((id) => {
        const value = pick<VerdictValue | 'missing'>(random, [
          ['pass', quality * 100],
          ['fail', (1 - quality) * 80],
          ['blocked', (1 - quality) * 10],
          ['missing', (1 - quality) * 10],
        ]);
        return value === 'missing' ? [] : [verdict(id, value, seq, mode)];
      });
      return { res: result('evaluator', ids, { verdicts }) };
    }
    default:
      throw new Error(`not a session: ${action.kind}`);
  }
}

function newSession(seq: number): SessionRecord {
  return { ...emptySession(seq, `r-test-${seq}`, 'generator', T0.toISOString()), workerId: 'w' };
}

/** Drives planner + result application until the planner stops asking for sessions. */
function simulate(
  world: World,
  maxSteps: number,
  maxSessions = 200,
): { state: RunState; last: NextAction; steps: number } {
  const budgets = { maxCostUsd: 1e6, stuckAfterEvaluations: 1e6, maxSessions };
  let state = makeState([], { status: 'created', config: { budgets } });
  for (let seq = 1; seq <= maxSteps; seq++) {
    const action = nextAction(state, T0);
    if (!['initialize', 'generate', 'evaluate', 'regress'].includes(action.kind))
      return { state, last: action, steps: seq - 1 };
    const { res, features } = play(action, seq, world);
    const out = applySessionResult({
      ...state,
      session: newSession(seq),
      result: res,
      newFeatures: features,
      now: T0.toISOString(),
    });
    state = { run: out.run, features: out.features };
  }
  return { state, last: nextAction(state, T0), steps: maxSteps };
}

describe('planner and result application together', () => {
  it('builds every feature with a perfect generator and finishes after a clean final sweep', () => {
    const { state, last, steps } = simulate({ quality: 1, random: prng(1) }, 500);
    expect(last).toEqual({ kind: 'finish' });
    expect(state.features.every((f) => f.passes)).toBe(true);
    expect(state.run.counters.sweeps).toBeGreaterThanOrEqual(2);
    // The last sweep re-checked everything passed before the last new pass.
    expect(state.features.every((f) => f.lastCheckedSeq >= state.run.counters.lastPassSeq)).toBe(true);
    expect(steps).toBeLessThan(500);
  });

  it.each(Array.from({ length: 40 }, (_, i) => i + 1))(
    'always stops, within the session budget (seed %i)',
    (seed) => {
      const random = prng(seed);
      const world = { quality: 0.3 + random() * 0.7, random };
      const { state, last } = simulate(world, 1000);
      expect(['finish', 'pause']).toContain(last.kind);
      if (last.kind === 'pause') expect(last.reason).toBe('budget');
      expect(state.run.counters.sessions).toBeLessThanOrEqual(state.run.config.budgets.maxSessions);
      if (last.kind === 'finish') {
        expect(state.features.filter((f) => !f.blocked).every((f) => f.passes)).toBe(true);
      }
    },
  );
});

describe('termination without the session budget', () => {
  it.each(Array.from({ length: 40 }, (_, i) => i + 100))('finishes on its own bounds (seed %i)', (seed) => {
    const random = prng(seed);
    const world = { quality: 0.2 + random() * 0.8, random };
    const { state, last, steps } = simulate(world, 20_000, 1e9);
    expect(last).toEqual({ kind: 'finish' });
    expect(steps).toBeLessThan(20_000);
    expect(state.features.filter((f) => !f.blocked).every((f) => f.passes)).toBe(true);
  });
});
