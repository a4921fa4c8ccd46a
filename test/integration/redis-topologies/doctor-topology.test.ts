import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../../cli/doctor.js';
import { checkRedisTopology } from '../../../cli/doctor-topology.js';
import { RedisProcesses, type SentinelSet, sentinelUrl, startCluster, startSentinelSet } from './servers.js';

// `doctor`'s topology check against real servers: a Sentinel set and a three-master Cluster, healthy first, then
// broken one way at a time. Each problem must be named, with what to do about it.
const processes = new RedisProcesses();
let set: SentinelSet;
let cluster: number[];
beforeAll(async () => {
  [set, cluster] = await Promise.all([startSentinelSet(processes), startCluster(processes, 3)]);
}, 120_000);
afterAll(() => processes.killAll());

const clusterUrl = () => `redis+cluster://${cluster.map((port) => `127.0.0.1:${port}`).join(',')}`;
const cli = (port: number, ...args: string[]) =>
  execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });

describe('doctor on a Sentinel set', () => {
  it('is ok when every sentinel answers and names a master that answers', async () => {
    expect(await checkRedisTopology(sentinelUrl(set))).toEqual({
      name: 'redis topology',
      status: 'ok',
      detail: `sentinel set of "nsmaster": master 127.0.0.1:${set.master}, 3/3 sentinels answer`,
      fix: null,
    });
  });

  it('fails on a master name the sentinels do not monitor, naming each sentinel and where to look', async () => {
    const check = await checkRedisTopology(sentinelUrl({ ...set, masterName: 'nsmastr' }));
    expect(check).toMatchObject({ status: 'fail' });
    for (const port of set.sentinels)
      expect(check?.detail).toContain(`sentinel 127.0.0.1:${port} does not know a master named "nsmastr"`);
    expect(check?.fix).toMatch(/SENTINEL MASTERS/);
  });

  it('warns when a sentinel is down (a failover needs a quorum)', async () => {
    const [down] = set.sentinels as [number];
    processes.kill(down);
    const check = await checkRedisTopology(sentinelUrl(set));
    expect(check).toMatchObject({ status: 'warn' });
    expect(check?.detail).toContain('2/3 sentinels answer');
    expect(check?.detail).toContain(`sentinel 127.0.0.1:${down} does not answer`);
    expect(check?.fix).toMatch(/quorum/);
  });

  it('fails when the master is down and no replica can take over, saying so', async () => {
    // The replica first: with it gone the sentinels cannot promote anyone and keep naming the dead master.
    processes.kill(set.replica);
    processes.kill(set.master);
    const check = await checkRedisTopology(sentinelUrl(set));
    expect(check).toMatchObject({ status: 'fail' });
    expect(check?.detail).toContain(
      `the master the sentinels name (127.0.0.1:${set.master}) does not answer`,
    );
    expect(check?.fix).toMatch(/start it again/i);
    expect(check?.fix).toMatch(/replica/);
  });
});

describe('doctor on a Redis Cluster', () => {
  it('is ok when all slots are covered and every master answers', async () => {
    expect(await checkRedisTopology(clusterUrl())).toEqual({
      name: 'redis topology',
      status: 'ok',
      detail: 'Redis Cluster: all 16384 slots covered, 3 masters answer',
      fix: null,
    });
  });

  it('fails on a slot no master serves, with the command that assigns it', async () => {
    // Slot 0 forgotten by every node: nobody serves it, and the cluster's state turns to fail.
    for (const port of cluster) cli(port, 'CLUSTER', 'DELSLOTS', '0');
    // The whole doctor, as `nightshift doctor` runs it: the Cluster answers PING, and its topology is what fails.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-doctor-topology-'));
    try {
      const report = await runDoctor({
        cwd: home,
        env: { REDIS_URL: clusterUrl(), NIGHTSHIFT_HOME: home, PATH: process.env.PATH },
      });
      const byName = Object.fromEntries(report.checks.map((check) => [check.name, check]));
      expect(byName.redis).toMatchObject({ status: 'ok' });
      const check = byName['redis topology'];
      expect(check).toMatchObject({ status: 'fail' });
      expect(check?.detail).toContain('1 of 16384 slots have no master');
      expect(check?.detail).toContain('cluster_state is fail');
      expect(check?.fix).toContain(`redis-cli --cluster fix 127.0.0.1:${cluster[0]}`);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('fails on a master that is down, naming it', async () => {
    const down = cluster[2] as number;
    processes.kill(down);
    const check = await checkRedisTopology(clusterUrl());
    expect(check).toMatchObject({ status: 'fail' });
    expect(check?.detail).toContain(`master 127.0.0.1:${down} does not answer`);
    expect(check?.fix).toMatch(/start each master named again/i);
  });
});
