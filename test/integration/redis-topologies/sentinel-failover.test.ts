import { afterAll, describe, expect, it } from 'vitest';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { createRunHarness, type RunHarness, waitFor } from '../runs/harness.js';
import { RedisProcesses, startSentinelSet } from './servers.js';
import { missingCommits, sessionsOf, startShortRun, untilEnded } from './short-run.js';

// A Sentinel set (master, replica, three sentinels: quorum 2) under a whole run (2 todo features, scripted model,
// one in-process worker). The master is SIGKILLed while a generator session is in flight; the sentinels promote
// the replica, every client finds it, and the run ends done with every session, commit and event it had kept.
const processes = new RedisProcesses();
let harness: RunHarness | undefined;
afterAll(async () => {
  try {
    await harness?.close();
  } finally {
    processes.killAll();
  }
}, 120_000);

describe('Sentinel failover', () => {
  it('keeps the night when the master is killed mid-session', { timeout: 600_000 }, async () => {
    const set = await startSentinelSet(processes);
    const sentinels = set.sentinels.map((port) => `127.0.0.1:${port}`).join(',');
    const h = await createRunHarness(demoPolicy, {
      redisUrl: `redis+sentinel://${sentinels}/${set.masterName}`,
    });
    harness = h;
    await h.startWorker();
    const { runId, workspace } = await startShortRun(h);
    const store = h.orchestrator.store;

    // A generator session in flight: started, no result yet, and something of the run already recorded.
    await waitFor('a generator session in flight', async () => {
      const sessions = await sessionsOf(h, runId);
      const last = sessions.at(-1);
      return sessions.length >= 2 && last?.role === 'generator' && last.outcome === null ? last : undefined;
    });
    const before = await sessionsOf(h, runId);
    const eventsBefore = await store.readEvents(runId, { count: 100_000 });
    const killedAt = Date.now();
    processes.kill(set.master);

    const run = await untilEnded(h, runId);
    expect(run.status, run.detail ?? '').toBe('done');
    const features = await store.listFeatures(runId);
    expect(features.map((feature) => feature.passes)).toEqual([true, true]);

    // Nothing lost: every session and event from before the kill is still there as it was, every commit a session
    // recorded is in the repository, and the session in flight got its result.
    const after = await sessionsOf(h, runId);
    const finishedBefore = before.filter((session) => session.outcome !== null);
    expect(after.slice(0, finishedBefore.length)).toEqual(finishedBefore);
    expect(after.every((session) => session.outcome !== null)).toBe(true);
    expect(missingCommits(workspace, after)).toEqual([]);
    const eventsAfter = await store.readEvents(runId, { count: 100_000 });
    expect(eventsAfter.slice(0, eventsBefore.length)).toEqual(eventsBefore);
    const promoted = eventsAfter[eventsBefore.length]?.event;
    expect(promoted).toBeDefined();
    console.log(`sentinel failover: run ended ${Date.now() - killedAt} ms after the master was killed`);
  });
});
