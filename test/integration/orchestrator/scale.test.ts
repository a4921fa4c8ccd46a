import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../../orchestrator/run/index.js';
import { feature, result, verdict } from '../../unit/orchestrator/fixtures.js';
import { connect, deleteKeys, newRun, uniquePrefix } from './redis-helpers.js';

const prefix = uniquePrefix();
let redis: Redis;
let store: RunStore;

beforeAll(() => {
  redis = connect();
  store = new RunStore(redis, { prefix });
});

afterAll(async () => {
  await store.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

const FEATURES = 1000;
const SESSIONS = 2000;

describe('a large run', () => {
  it(`loads a run with ${FEATURES} features and ${SESSIONS} sessions, and pages its history`, async () => {
    const run = await store.createRun(newRun({ budgets: { maxSessions: 10_000, maxCostUsd: 10_000 } }));
    let started = performance.now();
    await store.replaceFeatures(
      run.id,
      Array.from({ length: FEATURES }, (_, i) => ({
        ...feature(i + 1),
        steps: ['open the page', 'click the button', 'see the result'],
      })),
    );
    const writeFeaturesMs = performance.now() - started;

    started = performance.now();
    for (let seq = 1; seq <= SESSIONS; seq++) {
      const id = `F-${String((seq % FEATURES) + 1).padStart(3, '0')}`;
      await store.recordSessionStarted(run.id, {
        seq,
        jobId: `${run.id}-${seq}`,
        role: seq % 2 ? 'generator' : 'evaluator',
        featureIds: [id],
        workerId: 'w1',
      });
    }
    const startSessionsMs = performance.now() - started;

    // Results through the real path (each reads all features): a sample, timed per result.
    started = performance.now();
    const RESULTS = 100;
    for (let seq = 1; seq <= RESULTS; seq++) {
      const id = `F-${String((seq % FEATURES) + 1).padStart(3, '0')}`;
      const res =
        seq % 2
          ? result('generator', [id])
          : result('evaluator', [id], { verdicts: [verdict(id, seq % 4 === 0 ? 'pass' : 'fail', seq)] });
      await store.recordSessionResult(run.id, seq, res);
    }
    const resultMs = (performance.now() - started) / RESULTS;

    started = performance.now();
    const state = await store.loadState(run.id);
    const loadStateMs = performance.now() - started;
    started = performance.now();
    const page = await store.listSessions(run.id, { offset: 0, limit: 50, order: 'desc' });
    const pageMs = performance.now() - started;
    started = performance.now();
    const runs = await store.listRuns();
    const listRunsMs = performance.now() - started;

    expect(state.features).toHaveLength(FEATURES);
    expect(state.features.map((f) => f.position)).toEqual(Array.from({ length: FEATURES }, (_, i) => i));
    expect(state.run.counters.sessions).toBe(RESULTS);
    expect(state.run.features.passing).toBe(RESULTS / 4);
    expect(page.total).toBe(SESSIONS);
    expect(page.sessions.map((s) => s.seq)).toEqual(Array.from({ length: 50 }, (_, i) => SESSIONS - i));
    expect(runs.map((r) => r.id)).toContain(run.id);

    const figures = {
      writeFeaturesMs,
      startSessionsMsEach: startSessionsMs / SESSIONS,
      recordResultMsEach: resultMs,
      loadStateMs,
      listSessionsPageMs: pageMs,
      listRunsMs,
    };
    console.log(
      `[scale] ${FEATURES} features, ${SESSIONS} sessions:`,
      Object.entries(figures)
        .map(([name, ms]) => `${name}=${ms.toFixed(1)}`)
        .join(' '),
    );
  }, 300_000);
});
