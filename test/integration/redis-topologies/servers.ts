/**
 * Real redis-server processes on free ports for topology tests: a Cluster of masters, a Sentinel set (master,
 * replica, sentinels). Every process is killed by `stop` (and on process exit, should a test crash).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Processes started by one test file, killed together. */
export class RedisProcesses {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-redis-topology-'));
  private readonly children = new Map<number, ChildProcess>();
  private readonly onExit = () => this.killAll();

  constructor() {
    process.once('exit', this.onExit);
  }

  /** Starts `redis-server` with a config file of `lines` (plus port and dir) and waits for PING. */
  async start(port: number, lines: string[], sentinel = false): Promise<ChildProcess> {
    const file = path.join(this.dir, `${port}.conf`);
    const base = [`port ${port}`, 'bind 127.0.0.1', `dir ${this.dir}`, 'save ""', 'appendonly no'];
    fs.writeFileSync(file, [...base, ...lines].join('\n'));
    const child = spawn('redis-server', sentinel ? [file, '--sentinel'] : [file], { stdio: 'ignore' });
    if (child.pid) this.children.set(port, child);
    await waitForPing(port);
    return child;
  }

  /** SIGKILLs the process on `port` (no shutdown, no save: as a crashed machine). */
  kill(port: number): void {
    this.children.get(port)?.kill('SIGKILL');
    this.children.delete(port);
  }

  /** Kills every process and removes the files. */
  killAll(): void {
    for (const port of [...this.children.keys()]) this.kill(port);
    fs.rmSync(this.dir, { recursive: true, force: true });
    process.removeListener('exit', this.onExit);
  }
}

async function waitForPing(port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not answer: ${String(error)}`);
    } finally {
      client.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts `masters` cluster nodes (no replicas), joins them with `redis-cli --cluster create`, waits for `ok`. */
export async function startCluster(processes: RedisProcesses, masters: number): Promise<number[]> {
  const ports: number[] = [];
  for (let index = 0; index < masters; index++) ports.push(await freePort());
  await Promise.all(
    ports.map((port) =>
      processes.start(port, [
        'cluster-enabled yes',
        `cluster-config-file nodes-${port}.conf`,
        'cluster-node-timeout 5000',
      ]),
    ),
  );
  const nodes = ports.map((port) => `127.0.0.1:${port}`);
  await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
  for (const port of ports) await waitFor(port, ['CLUSTER', 'INFO'], /cluster_state:ok/);
  return ports;
}

/** A Sentinel set: its master, replica and sentinel ports. */
export interface SentinelSet {
  master: number;
  replica: number;
  sentinels: number[];
  masterName: string;
  /** The relay the replica replicates through, when asked for. */
  relay?: ReplicationRelay;
}

/** How to build a Sentinel set. */
export interface SentinelSetOptions {
  /** The name the sentinels monitor (default `nsmaster`). */
  masterName?: string;
  /** Replicate through a {@link ReplicationRelay}, so a test can hold the master's stream back. */
  relay?: boolean;
}

/**
 * A master, one replica and three sentinels (quorum 2: a majority of three can vote a failover through, and
 * one sentinel alone cannot promote on its own mistaken view). Down after 1 s, so a test's failover takes seconds.
 */
export async function startSentinelSet(
  processes: RedisProcesses,
  options: SentinelSetOptions = {},
): Promise<SentinelSet> {
  const masterName = options.masterName ?? 'nsmaster';
  const [master, replica, ...sentinels] = await Promise.all([1, 2, 3, 4, 5].map(() => freePort()));
  if (master === undefined || replica === undefined) throw new Error('no ports');
  await processes.start(master, []);
  const relay = options.relay ? await ReplicationRelay.start(master) : undefined;
  await processes.start(replica, [`replicaof 127.0.0.1 ${relay?.port ?? master}`]);
  await waitFor(replica, ['INFO', 'replication'], /master_link_status:up/);
  for (const port of sentinels) {
    await processes.start(
      port,
      [
        `sentinel monitor ${masterName} 127.0.0.1 ${master} 2`,
        `sentinel down-after-milliseconds ${masterName} 1000`,
        // Past this the sentinels would point a replica that replicates through a relay at the master itself.
        `sentinel failover-timeout ${masterName} ${relay ? 120_000 : 10_000}`,
        `sentinel parallel-syncs ${masterName} 1`,
      ],
      true,
    );
  }
  // Each sentinel must have found the replica and the other sentinels before a failover can be voted.
  for (const port of sentinels) {
    await waitFor(port, ['SENTINEL', 'MASTER', masterName], /num-slaves\n1\n[\s\S]*num-other-sentinels\n2\n/);
  }
  return { master, replica, sentinels, masterName, ...(relay ? { relay } : {}) };
}

/** The `host:port` list of a set's sentinels, for a `redis+sentinel://` URL. */
export function sentinelUrl(set: SentinelSet): string {
  return `redis+sentinel://${set.sentinels.map((port) => `127.0.0.1:${port}`).join(',')}/${set.masterName}`;
}

/** Waits until the set's first sentinel names `port` as the master (the promotion is done). */
export async function untilMasterIs(set: SentinelSet, port: number): Promise<void> {
  const [sentinel] = set.sentinels;
  if (sentinel === undefined) throw new Error('no sentinels');
  await waitFor(
    sentinel,
    ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', set.masterName],
    new RegExp(`^127\\.0\\.0\\.1\\n${port}\\n`),
  );
}

/**
 * Waits until every sentinel sees the set's replicas as healthy (flags `slave` alone, link to the master ok): only
 * then can they promote one at once (a replica they last saw down is passed over until they look again).
 */
export async function untilReplicasHealthy(set: SentinelSet): Promise<void> {
  for (const port of set.sentinels) {
    await waitFor(
      port,
      ['SENTINEL', 'REPLICAS', set.masterName],
      /^flags\nslave\n[\s\S]*master-link-status\nok\n/m,
      60_000,
    );
  }
}

/**
 * A TCP relay in front of the master that the replica replicates through. `hold()` stops passing the master's
 * stream on (a network that delays it): a write is then on the master and not on the replica. `drop()` closes
 * every connection and the port, throwing away what it held, as the master's death would.
 */
export class ReplicationRelay {
  private held = false;
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;

  private constructor(target: number) {
    this.server = net.createServer((replica) => {
      const master = net.connect(target, '127.0.0.1');
      for (const socket of [replica, master]) {
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          this.sockets.delete(socket);
          replica.destroy();
          master.destroy();
        });
      }
      replica.pipe(master);
      master.on('data', (chunk) => {
        if (!this.held) replica.write(chunk);
      });
    });
  }

  /** The port the replica connects to. */
  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  /** A relay listening on a free port, passing every connection on to `target`. */
  static async start(target: number): Promise<ReplicationRelay> {
    const relay = new ReplicationRelay(target);
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  /** From now on, nothing the master sends reaches the replica. */
  hold(): void {
    this.held = true;
  }

  /** Closes every connection (what was held is lost) and stops listening. */
  drop(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }
}

/** Polls `redis-cli -p port …command` until its reply matches. */
export async function waitFor(
  port: number,
  command: string[],
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let reply = '';
  for (;;) {
    reply = await run('redis-cli', ['-p', String(port), ...command]).then(
      (result) => result.stdout,
      (error: Error) => error.message,
    );
    if (pattern.test(reply)) return;
    if (Date.now() > deadline) throw new Error(`port ${port}: ${command.join(' ')} never matched: ${reply}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
