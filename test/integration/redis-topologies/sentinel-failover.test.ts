import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { openRedis } from '../../../orchestrator/redis-client.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { result } from '../../unit/orchestrator/fixtures.js';
import { newRun } from '../orchestrator/redis-helpers.js';
import { createRunHarness, type RunHarness, waitFor } from '../runs/harness.js';
import { RedisProcesses, sentinelUrl, startSentinelSet, untilMasterIs } from './servers.js';
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

/** Calls of `command` the server on `port` has answered (INFO commandstats). */
function commandCalls(port: number, command: string): number {
  const info = execFileSync('redis-cli', ['-p', String(port), 'INFO', 'commandstats'], { encoding: 'utf8' });
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
}

describe('Sentinel failover', () => {
  it('keeps the night when the master is killed mid-session', { timeout: 600_000 }, async () => {
    const set = await startSentinelSet(processes);
    const h = await createRunHarness(demoPolicy, { redisUrl: sentinelUrl(set) });
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
    const finishedBefore = before.filter((session) => session.outcome !== null);
    // Every result recorded so far waited for the replica (WAIT) before the worker went on.
    expect(commandCalls(set.master, 'wait')).toBeGreaterThanOrEqual(finishedBefore.length);
    const killedAt = Date.now();
    processes.kill(set.master);

    const run = await untilEnded(h, runId);
    expect(run.status, run.detail ?? '').toBe('done');
    const features = await store.listFeatures(runId);
    expect(features.map((feature) => feature.passes)).toEqual([true, true]);

    // Nothing lost: every session and event from before the kill is still there as it was, every commit a session
    // recorded is in the repository, and the session in flight got its result.
    const after = await sessionsOf(h, runId);
    expect(after.slice(0, finishedBefore.length)).toEqual(finishedBefore);
    expect(after.every((session) => session.outcome !== null)).toBe(true);
    expect(missingCommits(workspace, after)).toEqual([]);
    const eventsAfter = await store.readEvents(runId, { count: 100_000 });
    expect(eventsAfter.slice(0, eventsBefore.length)).toEqual(eventsBefore);
    const promoted = eventsAfter[eventsBefore.length]?.event;
    expect(promoted).toBeDefined();
    console.log(`sentinel failover: run ended ${Date.now() - killedAt} ms after the master was killed`);
  });

  // The loss WAIT guards against, made certain: the replica replicates through a relay that holds the master's
  // stream back, so the session's result is on the master (acknowledged) and not on the replica when the master
  // dies. The promoted replica must have it all the same: the store reads it back and writes it again.
  it('writes a session result again when the master that acknowledged it died before its replica had it', {
    timeout: 180_000,
  }, async () => {
    const set = await startSentinelSet(processes, { masterName: 'nsrelay', relay: true });
    const redis = openRedis(sentinelUrl(set));
    redis.on('error', () => undefined);
    const direct = (port: number) => new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    const [master, replica] = [direct(set.master), direct(set.replica)];
    for (const client of [master, replica]) client.on('error', () => undefined);
    const prefix = `nstest:${randomBytes(4).toString('hex')}:`;
    // A long wait: the result's WAIT must still be waiting when the master dies.
    const store = new RunStore(redis, { prefix, redisWait: { replicas: 1, timeoutMs: 60_000 } });
    try {
      const run = await store.createRun(newRun());
      const seq = await store.nextSeq(run.id);
      await store.recordSessionStarted(run.id, {
        seq,
        jobId: `${run.id}-${seq}`,
        role: 'generator',
        kind: 'generate',
        featureIds: [],
        workerId: 'host-1:42',
      });
      const session = async (client: Redis) => {
        const json = await client.hget(store.keys(run.id).sessions, String(seq));
        return json ? (JSON.parse(json) as { finishedAt: string | null; commits: string[] }) : undefined;
      };
      await waitFor('the replica has the started session', () => session(replica));
      set.relay?.hold();
      const recording = store.recordSessionResult(
        run.id,
        seq,
        result('generator', [], { commits: ['c0ffee'] }),
      );
      await waitFor('the master has the result', async () =>
        (await session(master))?.finishedAt ? true : undefined,
      );
      expect((await session(replica))?.finishedAt).toBeNull();

      processes.kill(set.master);
      set.relay?.drop();
      await untilMasterIs(set, set.replica);
      // The promoted replica lacks the result; it gets a replica of its own, so WAIT there can be answered.
      await processes.start(set.master, [`replicaof 127.0.0.1 ${set.replica}`]);
      const outcome = await recording;
      expect(outcome.applied).toBe(true);
      expect(await session(replica)).toMatchObject({ finishedAt: expect.any(String), commits: ['c0ffee'] });
    } finally {
      await store.close();
      for (const client of [redis, master, replica]) client.disconnect();
    }
  });
});
