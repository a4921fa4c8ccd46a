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
  // The doctor wants to see a failing Cluster, not to be refused by it.
  enableReadyCheck: false,
};

/** The longest one probe may take: a doctor must answer, whatever state the servers are in. */
const PROBE_DEADLINE_MS = 10_000;

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
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${PROBE_DEADLINE_MS / 1000} s`), PROBE_DEADLINE_MS);
  });
  const probe = (async () => {
    await client.connect();
    return await fn(client);
  })().catch((error: unknown) => (error as Error).message || String(error));
  try {
    return await Promise.race([probe, deadline]);
  } finally {
    clearTimeout(timer);
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
    return fail('redis topology', `${name}: ${problems.join('; ')}`, masterFix(topology, master));
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

function masterFix(topology: Extract<RedisTopology, { kind: 'sentinel' }>, master: string): string {
  const [sentinel] = topology.sentinels;
  return (
    `Start it again (at ${master}), or bring up a replica the sentinels can promote in its place ` +
    `(redis-cli -h ${sentinel?.host} -p ${sentinel?.port} SENTINEL REPLICAS ${topology.masterName} lists them).`
  );
}

async function checkCluster(topology: Extract<RedisTopology, { kind: 'cluster' }>): Promise<DoctorCheck> {
  const seed = `${topology.nodes[0]?.host}:${topology.nodes[0]?.port}`;
  const check = `Check the nodes with \`redis-cli --cluster check ${seed}\`.`;
  // Each master is asked itself: a command sent to "the cluster" may land on the one that is down.
  const result = await onNode(topology, async (client) => {
    const masters = (client as unknown as Cluster).nodes('master');
    const silent: string[] = [];
    let info: string | undefined;
    for (const master of masters) {
      const answer = await master.cluster('INFO').then(String, (error: Error) => error);
      if (answer instanceof Error)
        silent.push(
          `master ${master.options.host}:${master.options.port} does not answer (${answer.message})`,
        );
      else info ??= answer;
    }
    return { info, masters: masters.length, silent };
  });
  if (typeof result === 'string' || result.info === undefined) {
    const why = typeof result === 'string' ? `no node answers (${result})` : result.silent.join('; ');
    return fail('redis topology', `Redis Cluster: ${why}`, check);
  }
  const state = /cluster_state:(\w+)/.exec(result.info)?.[1] ?? 'unknown';
  const uncovered = 16_384 - Number(/cluster_slots_assigned:(\d+)/.exec(result.info)?.[1] ?? 0);
  const problems = [
    ...(state === 'ok' ? [] : [`cluster_state is ${state}`]),
    ...(uncovered === 0 ? [] : [`${uncovered} of 16384 slots have no master`]),
    ...result.silent,
  ];
  const fixes = [
    ...(uncovered === 0
      ? []
      : [`Give the slots a master: \`redis-cli --cluster fix ${seed}\` (run it against any node).`]),
    ...(result.silent.length === 0
      ? []
      : [
          'Start each master named again, or promote its replica (`CLUSTER FAILOVER TAKEOVER` on the replica).',
        ]),
    check,
  ];
  return problems.length
    ? fail('redis topology', `Redis Cluster: ${problems.join('; ')}`, fixes.join(' '))
    : ok('redis topology', `Redis Cluster: all 16384 slots covered, ${result.masters} masters answer`);
}
