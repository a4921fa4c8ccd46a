import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_ID_PATTERN } from '../../../orchestrator/keys.js';
import {
  FeatureNotFoundError,
  RunNotFoundError,
  RunStore,
  RunTransitionError,
} from '../../../orchestrator/run/index.js';
import { feature, result, verdict } from '../../unit/orchestrator/fixtures.js';
import { connect, deleteKeys, newRun, uniquePrefix } from './redis-helpers.js';

const prefix = uniquePrefix();
let redis: Redis;
let other: Redis;
let store: RunStore;
let otherStore: RunStore;

beforeAll(() => {
  redis = connect();
  other = connect();
  store = new RunStore(redis, { prefix });
  otherStore = new RunStore(other, { prefix });
});

afterAll(async () => {
  await store.close();
  await otherStore.close();
  await deleteKeys(redis, prefix);
  expect(await redis.keys(`${prefix}*`)).toEqual([]);
  redis.disconnect();
  other.disconnect();
});

describe('runs', () => {
  it('creates, gets and lists runs newest first', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const clocked = new RunStore(redis, {
      prefix: `${prefix}list:`,
      now: () => {
        clock += 1000;
        return new Date(clock);
      },
    });
    const a = await clocked.createRun(newRun());
    const b = await clocked.createRun(newRun({ budgets: { maxCostUsd: 3 } }));
    expect(a.id).toMatch(RUN_ID_PATTERN);
    expect(a.id).toMatch(/^r-[a-z0-9]+$/);
    expect(a).toMatchObject({ status: 'created', seq: 0, rev: 0, pausedReason: null, startedAt: null });
    expect(await clocked.getRun(b.id)).toEqual(b);
    expect((await clocked.listRuns()).map((run) => run.id)).toEqual([b.id, a.id]);
    expect((await clocked.listRuns({ status: ['building'] })).length).toBe(0);
    await expect(clocked.createRun(newRun({}, a.id))).rejects.toMatchObject({ code: 'RUN_EXISTS' });
    await expect(clocked.getRun('r-nothere')).rejects.toBeInstanceOf(RunNotFoundError);
    expect(await clocked.findRun('r-nothere')).toBeUndefined();
    const [first] = await clocked.readEvents(a.id);
    expect(first?.event).toMatchObject({ type: 'run.created', runId: a.id, spec: { name: 'todo.md' } });
    await clocked.deleteRun(a.id);
    expect(await clocked.findRun(a.id)).toBeUndefined();
    expect((await clocked.listRuns()).map((run) => run.id)).toEqual([b.id]);
    await clocked.deleteRun(b.id);
  });

  it('hands out job sequence numbers atomically', async () => {
    const run = await store.createRun(newRun());
    const seqs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? store : otherStore).nextSeq(run.id)),
    );
    expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await store.getRun(run.id)).seq).toBe(20);
  });
});

describe('status transitions', () => {
  it('follows the lifecycle and records each change as an event', async () => {
    const run = await store.createRun(newRun());
    expect((await store.setStatus(run.id, 'initializing')).startedAt).not.toBeNull();
    await store.setStatus(run.id, 'building');
    const paused = await store.setStatus(run.id, 'paused', {
      reason: 'budget',
      detail: 'cost $20.00 reached',
    });
    expect(paused).toMatchObject({ status: 'paused', pausedReason: 'budget', detail: 'cost $20.00 reached' });
    const resumed = await store.setStatus(run.id, 'building');
    expect(resumed).toMatchObject({ status: 'building', pausedReason: null, detail: null });
    const done = await store.setStatus(run.id, 'done');
    expect(done.finishedAt).not.toBeNull();
    const statuses = (await store.readEvents(run.id))
      .map(({ event }) => event)
      .filter((event) => event.type === 'run.status')
      .map((event) => (event.type === 'run.status' ? `${event.previous}>${event.status}` : ''));
    expect(statuses).toEqual([
      'created>initializing',
      'initializing>building',
      'building>paused',
      'paused>building',
      'building>done',
    ]);
  });

  it('refuses to leave cancelled, done but to build again (a feature added), and other illegal changes', async () => {
    const finished = await store.createRun(newRun());
    await store.setStatus(finished.id, 'building');
    await store.setStatus(finished.id, 'done');
    for (const status of ['paused', 'initializing', 'failed'] as const) {
      await expect(store.setStatus(finished.id, status)).rejects.toMatchObject({
        code: 'RUN_TRANSITION_INVALID',
      });
    }
    expect(await store.setStatus(finished.id, 'building')).toMatchObject({
      status: 'building',
      finishedAt: null,
    });
    const run = await store.createRun(newRun());
    await store.setStatus(run.id, 'initializing');
    // A run still initializing has no feature list, so it cannot be done.
    await expect(store.setStatus(run.id, 'done')).rejects.toBeInstanceOf(RunTransitionError);
    await store.setStatus(run.id, 'cancelled');
    for (const status of ['created', 'initializing', 'building', 'paused', 'done', 'failed'] as const) {
      await expect(store.setStatus(run.id, status)).rejects.toMatchObject({ code: 'RUN_TRANSITION_INVALID' });
    }
    expect((await store.getRun(run.id)).status).toBe('cancelled');
    // Setting the current status again is an idempotent no-op without an event.
    const before = await store.eventCount(run.id);
    await store.setStatus(run.id, 'cancelled');
    expect(await store.eventCount(run.id)).toBe(before);
  });

  it('resumes a failed run with fresh failure counters, and a stuck one with a fresh progress count', async () => {
    const run = await store.createRun(newRun());
    await store.setStatus(run.id, 'initializing');
    for (const seq of [1, 2]) {
      await store.recordSessionResult(run.id, seq, result('initializer', [], { outcome: 'failed' }));
    }
    expect((await store.getRun(run.id)).counters.initializerFailures).toBe(2);
    await store.setStatus(run.id, 'failed', { detail: 'initializer failed' });
    const resumed = await store.setStatus(run.id, 'initializing');
    expect(resumed).toMatchObject({ finishedAt: null, counters: { initializerFailures: 0 } });

    await store.replaceFeatures(run.id, [feature(1)]);
    await store.setStatus(run.id, 'building');
    await store.recordSessionResult(
      run.id,
      3,
      result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'fail', 3)] }),
    );
    await store.setStatus(run.id, 'paused', { reason: 'stuck' });
    expect((await store.getRun(run.id)).counters.evaluationsSinceLastPass).toBe(1);
    expect((await store.setStatus(run.id, 'building')).counters.evaluationsSinceLastPass).toBe(0);
  });
});

describe('features and sessions', () => {
  it('stores the feature list in order and keeps harness state on replace', async () => {
    const run = await store.createRun(newRun());
    await store.replaceFeatures(run.id, [feature(1), feature(2), feature(3)]);
    await store.updateFeature(run.id, 'F-002', { attempts: 2 });
    const replaced = await store.replaceFeatures(run.id, [feature(3), feature(2)]);
    expect(replaced.features).toEqual({ total: 2, passing: 0, failing: 2, blocked: 0 });
    const state = await store.loadState(run.id);
    expect(state.features.map((f) => [f.id, f.position, f.attempts])).toEqual([
      ['F-003', 0, 0],
      ['F-002', 1, 2],
    ]);
    await expect(store.updateFeature(run.id, 'F-009', { attempts: 1 })).rejects.toBeInstanceOf(
      FeatureNotFoundError,
    );
    await expect(store.replaceFeatures(run.id, [{ ...feature(1), steps: [] }])).rejects.toThrow(
      /at least one step/,
    );
  });

  it('retries a blocked feature', async () => {
    const run = await store.createRun(newRun());
    await store.replaceFeatures(run.id, [feature(1)]);
    await store.updateFeature(run.id, 'F-001', {
      blocked: true,
      blockedReason: 'failed 3 evaluations',
      attempts: 3,
    });
    expect((await store.getRun(run.id)).features.blocked).toBe(1);
    const retried = await store.retryFeature(run.id, 'F-001');
    expect(retried).toMatchObject({ blocked: false, blockedReason: null, attempts: 0 });
    expect((await store.getRun(run.id)).features.blocked).toBe(0);
    const events = await store.readEvents(run.id, { latest: true, count: 1 });
    expect(events[0]?.event).toMatchObject({ type: 'feature.retried', featureId: 'F-001' });
  });

  it('records a session from start to result, once', async () => {
    const run = await store.createRun(newRun());
    await store.replaceFeatures(run.id, [feature(1)]);
    const seq = await store.nextSeq(run.id);
    const started = await store.recordSessionStarted(run.id, {
      seq,
      jobId: `${run.id}-${seq}`,
      role: 'generator',
      kind: 'generate',
      featureIds: ['F-001'],
      workerId: 'host-1:42',
    });
    expect(started).toMatchObject({ seq, finishedAt: null, workerId: 'host-1:42', kind: 'generate' });
    const first = await store.recordSessionResult(
      run.id,
      seq,
      result('generator', ['F-001'], { costUsd: 1.5 }),
    );
    expect(first.applied).toBe(true);
    expect(first.run.counters).toMatchObject({ sessions: 1, costUsd: 1.5 });
    expect(first.run.lastSession).toEqual({
      seq,
      role: 'generator',
      featureIds: ['F-001'],
      outcome: 'completed',
    });
    const again = await store.recordSessionResult(
      run.id,
      seq,
      result('generator', ['F-001'], { costUsd: 1.5 }),
    );
    expect(again.applied).toBe(false);
    expect(again.run.counters).toMatchObject({ sessions: 1, costUsd: 1.5 });
    const session = await store.getSession(run.id, seq);
    expect(session).toMatchObject({
      outcome: 'completed',
      costUsd: 1.5,
      workerId: 'host-1:42',
      commits: ['b'],
    });
    // A late start after the result does not reopen the session.
    const late = await store.recordSessionStarted(run.id, {
      seq,
      jobId: `${run.id}-${seq}`,
      role: 'generator',
      featureIds: ['F-001'],
      workerId: 'host-2:7',
    });
    expect(late.workerId).toBe('host-1:42');
    const types = (await store.readEvents(run.id)).map(({ event }) => event.type);
    expect(types.filter((type) => type === 'session.finished')).toHaveLength(1);
    expect(types.filter((type) => type === 'session.started')).toHaveLength(1);
  });

  it('applies concurrent results from two workers without losing an update', async () => {
    const run = await store.createRun(newRun({ budgets: { maxAttemptsPerFeature: 30 } }));
    await store.replaceFeatures(
      run.id,
      Array.from({ length: 10 }, (_, i) => feature(i + 1)),
    );
    // 8 evaluations of F-001…F-008 and 16 generator sessions on F-010, all at once, from two connections.
    const calls = Array.from({ length: 24 }, (_, i) => {
      const seq = i + 1;
      const target = i % 2 ? store : otherStore;
      const evaluated = `F-00${i / 3 + 1}`;
      const res =
        i % 3 === 0
          ? result('evaluator', [evaluated], { costUsd: 0.25, verdicts: [verdict(evaluated, 'fail', seq)] })
          : result('generator', ['F-010'], { costUsd: i % 4 === 1 ? null : 0.5 });
      return target.recordSessionResult(run.id, seq, res);
    });
    // The same seq delivered twice at once (a stalled job picked up again) counts once.
    const duplicate = result('evaluator', ['F-001'], {
      costUsd: 0.25,
      verdicts: [verdict('F-001', 'fail', 1)],
    });
    calls.push(store.recordSessionResult(run.id, 1, duplicate));
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((outcome) => outcome.applied)).toHaveLength(24);
    const state = await store.loadState(run.id);
    const evaluations = 8;
    const unknown = Array.from({ length: 24 }, (_, i) => i).filter((i) => i % 3 !== 0 && i % 4 === 1).length;
    expect(state.run.counters).toMatchObject({
      sessions: 24,
      costUnknownSessions: unknown,
      evaluationsSinceLastPass: evaluations,
    });
    expect(state.run.counters.costUsd).toBeCloseTo(
      evaluations * 0.25 + (24 - evaluations - unknown) * 0.5,
      10,
    );
    expect(state.features.slice(0, 8).map((f) => f.attempts)).toEqual(Array(8).fill(1));
    expect(state.features[9]?.generatorSessions).toBe(16);
    expect(state.run.features).toEqual({ total: 10, passing: 0, failing: 10, blocked: 0 });
    const page = await store.listSessions(run.id, { limit: 100 });
    expect(page.total).toBe(24);
    expect(page.sessions.map((session) => session.seq)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(page.sessions.every((session) => session.finishedAt !== null)).toBe(true);
  });

  it('installs the initializer’s feature list atomically with its result', async () => {
    const run = await store.createRun(newRun());
    const out = await store.recordSessionResult(run.id, 1, result('initializer', []), {
      features: [feature(1), feature(2)],
    });
    expect(out.run.features.total).toBe(2);
    expect((await store.loadState(run.id)).features.map((f) => f.id)).toEqual(['F-001', 'F-002']);
  });

  it('pages sessions in both orders', async () => {
    const run = await store.createRun(newRun());
    for (let seq = 1; seq <= 7; seq++) {
      await store.recordSessionStarted(run.id, {
        seq,
        jobId: `${run.id}-${seq}`,
        role: 'generator',
        featureIds: [],
        workerId: 'w',
      });
    }
    const asc = await store.listSessions(run.id, { offset: 2, limit: 3 });
    expect(asc.total).toBe(7);
    expect(asc.sessions.map((session) => session.seq)).toEqual([3, 4, 5]);
    const desc = await store.listSessions(run.id, { limit: 2, order: 'desc' });
    expect(desc.sessions.map((session) => session.seq)).toEqual([7, 6]);
  });
});
