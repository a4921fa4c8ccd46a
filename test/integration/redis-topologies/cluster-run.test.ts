import { afterAll, describe, expect, it } from 'vitest';
import { scanKeys } from '../../../orchestrator/redis-client.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { createRunHarness, type RunHarness } from '../runs/harness.js';
import { RedisProcesses, startCluster } from './servers.js';
import { missingCommits, sessionsOf, startShortRun, untilEnded } from './short-run.js';

// A whole run (2 todo features, scripted model, one in-process worker) on a real three-master Redis Cluster:
// BullMQ's Lua scripts and ours touch several keys at once, which a Cluster allows only within one slot.
const processes = new RedisProcesses();
let harness: RunHarness | undefined;
afterAll(async () => {
  try {
    await harness?.close();
  } finally {
    processes.killAll();
  }
}, 120_000);

describe('a Redis Cluster', () => {
  it('runs a whole run with every key under one hash-tagged prefix', { timeout: 600_000 }, async () => {
    const ports = await startCluster(processes, 3);
    const url = `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`;
    const h = await createRunHarness(demoPolicy, { redisUrl: url });
    harness = h;
    expect(h.prefix).toMatch(/^\{nstest:[0-9a-f]+\}:$/);
    await h.startWorker();
    const { runId, workspace } = await startShortRun(h);
    const run = await untilEnded(h, runId);
    expect(run.status, run.detail ?? '').toBe('done');
    const features = await h.orchestrator.store.listFeatures(runId);
    expect(features.map((feature) => feature.passes)).toEqual([true, true]);
    const sessions = await sessionsOf(h, runId);
    expect(sessions.every((session) => session.outcome !== null)).toBe(true);
    expect(missingCommits(workspace, sessions)).toEqual([]);

    // Every key (ours and BullMQ's) lives in one slot, on one master.
    const keys = await scanKeys(h.orchestrator.redis, '*');
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((key) => !key.startsWith(h.prefix))).toEqual([]);
    expect(keys.some((key) => key.startsWith(`${h.prefix}bull:sessions:`))).toBe(true);
  });
});
