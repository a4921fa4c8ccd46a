/**
 * `doctor`'s look at a Sentinel or Cluster topology: are the sentinels reachable and do they know the master, are
 * all 16384 slots covered and does every master answer. One server needs no more than the `redis` check's PING.
 */
import type { Cluster } from 'ioredis';
import { parseRedisUrl, type RedisEndpoint, type RedisTopology } from '../core/redis-url.js';
import { openRedis, type RedisTuning } from '../orchestrator/redis-client.js';
import { type DoctorCheck, fail, ok, warn } from './doctor-models.js';

const PROBE: RedisTuning = {
  lazyConnect: true,
  connectTimeout: 2_000,
  maxRetriesPerRequest: 0,
  enableOfflineQueue: false,
  retryStrategy: () => null,
};

/** The topology check of a configured URL, or undefined for one server (nothing more to check). */
export async function checkRedisTopology(url: string | undefined): Promise<DoctorCheck | undefined> {
  let topology: RedisTopology;
  try {
    if (!url) return undefined;
    topology = parseRedisUrl(url);
  } catch {
    return undefined; // the config check already names a bad URL
  }
  if (topology.kind === 'sentinel') return checkSentinel(topology);
  if (topology.kind === 'cluster') return checkCluster(topology);
  return undefined;
}

/** Runs `fn` on a short-lived probe client of one node; an error becomes its message. */
async function onNode<T>(
  target: RedisTopology,
  fn: (client: ReturnType<typeof openRedis>) => Promise<T>,
): Promise<T | string> {
  const client = openRedis(target, PROBE);
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await fn(client);
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    client.disconnect();
  }
}

function node(endpoint: RedisEndpoint, topology: RedisTopology, password?: string): RedisTopology {
  return { kind: 'standalone', endpoint, db: 0, tls: topology.tls, ...(password ? { password } : {}) };
}

async function checkSentinel(topology: Extract<RedisTopology, { kind: 'sentinel' }>): Promise<DoctorCheck> {
  const problems: string[] = [];
  let master: string | undefined;
  for (const sentinel of topology.sentinels) {
    const where = `sentinel ${sentinel.host}:${sentinel.port}`;
    const reply = await onNode(node(sentinel, topology, topology.sentinelPassword), (client) =>
      client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', topology.masterName),
    );
    if (typeof reply === 'string') problems.push(`${where} does not answer (${reply})`);
    else if (!Array.isArray(reply))
      problems.push(`${where} does not know a master named "${topology.masterName}"`);
    else master = `${reply[0]}:${reply[1]}`;
  }
  const name = `sentinel set of "${topology.masterName}"`;
  if (!master) {
    return fail('redis topology', `${name}: ${problems.join('; ')}`, sentinelFix(topology));
  }
  const [host = '', port = '0'] = master.split(/:(?=\d+$)/);
  const role = await onNode(
    { ...node({ host, port: Number(port) }, topology), ...credentials(topology) },
    (client) => client.call('ROLE'),
  );
  if (typeof role === 'string' || !Array.isArray(role) || role[0] !== 'master') {
    problems.push(
      `the master the sentinels name (${master}) ${typeof role === 'string' ? `does not answer (${role})` : 'is not a master'}`,
    );
    return fail('redis topology', `${name}: ${problems.join('; ')}`, sentinelFix(topology));
  }
  const detail = `${name}: master ${master}, ${topology.sentinels.length - problems.length}/${topology.sentinels.length} sentinels answer`;
  return problems.length
    ? warn(
        'redis topology',
        `${detail}; ${problems.join('; ')}`,
        'Bring the missing sentinels back: a failover needs a quorum of them.',
      )
    : ok('redis topology', detail);
}

function credentials(topology: RedisTopology): Pick<RedisTopology, 'username' | 'password'> {
  return {
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
  };
}

function sentinelFix(topology: Extract<RedisTopology, { kind: 'sentinel' }>): string {
  return (
    `Check the sentinel addresses and that they monitor "${topology.masterName}" ` +
    `(redis-cli -p <port> SENTINEL MASTERS); a sentinel password goes in ?sentinelPassword=.`
  );
}

async function checkCluster(topology: Extract<RedisTopology, { kind: 'cluster' }>): Promise<DoctorCheck> {
  const fix =
    'Check the nodes with `redis-cli --cluster check host:port` and fix the slots or masters named.';
  const result = await onNode(topology, async (client) => {
    const cluster = client as unknown as Cluster;
    const info = String(await cluster.cluster('INFO'));
    const state = /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
    const assigned = Number(/cluster_slots_assigned:(\d+)/.exec(info)?.[1] ?? 0);
    const masters = cluster.nodes('master');
    const silent: string[] = [];
    for (const master of masters) {
      const answer = await master.ping().catch((error: Error) => error.message);
      if (answer !== 'PONG') silent.push(`${master.options.host}:${master.options.port} (${answer})`);
    }
    return { state, assigned, masters: masters.length, silent };
  });
  if (typeof result === 'string')
    return fail('redis topology', `Redis Cluster: no node answers (${result})`, fix);
  const problems = [
    ...(result.state === 'ok' ? [] : [`cluster_state is ${result.state}`]),
    ...(result.assigned === 16_384 ? [] : [`${16_384 - result.assigned} of 16384 slots have no master`]),
    ...result.silent.map((master) => `master ${master} does not answer`),
  ];
  return problems.length
    ? fail('redis topology', `Redis Cluster: ${problems.join('; ')}`, fix)
    : ok('redis topology', `Redis Cluster: all 16384 slots covered, ${result.masters} masters answer`);
}
