/**
 * Recovery after the Redis master is killed (issue 31): the todo run on a bare remote, worked by two
 * `nightshift worker` processes on a Sentinel set the bench starts (master, replica, three sentinels: quorum 2,
 * down after 1 s; test/integration/redis-topologies/servers.ts). SIGKILL of the master while a session is in
 * flight (a generator's or an evaluator's, alternately) → the sentinels' promotion (`+switch-master`), the workers
 * back on the new master (their "connected to Redis … again" line), the run's next model request. After each
 * failover the killed node comes back as a replica of the new master, so the next kill has a replica to promote.
 * At the end, what was kept: every session finished before a kill unchanged, its verdicts, every recorded commit on
 * the remote, every event.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { RedisWait } from '../orchestrator/replica-ack.js';
import type { SessionRecord } from '../orchestrator/run/index.js';
import { recoveryFigure } from '../test/chaos/figures.js';
import { ChaosRig } from '../test/chaos/rig.js';
import {
  RedisProcesses,
  type SentinelSet,
  sentinelUrl,
  startSentinelSet,
  untilReplicasHealthy,
  waitFor,
} from '../test/integration/redis-topologies/servers.js';

const SPEC = fileURLToPath(new URL('../examples/todo/app_spec.md', import.meta.url));
/** Workers on the queue: the one running the session and one idle, both must find the new master. */
const WORKERS = 2;
/** Sessions finished before the first kill and between two kills, so the kills spread over the run. */
const SESSIONS_BETWEEN = 3;

/** Median, worst (seconds) and n of one recovery measure. */
export const Recovery = z.object({
  n: z.number().int(),
  median: z.number().nullable(),
  worst: z.number().nullable(),
});

/** One failover: the session in flight, and ms after the kill until each phase (null: not seen). */
export const SentinelFailover = z.object({
  role: z.string(),
  promotedMs: z.number().nullable(),
  workersOnNewMasterMs: z.number().nullable(),
  nextRequestMs: z.number().nullable(),
});
export type SentinelFailover = z.infer<typeof SentinelFailover>;

/** What was kept across the failovers, counted at the run's end. */
export const KeptCounts = z.object({
  runStatus: z.string(),
  sessions: z.number().int(),
  /** Sessions finished before some kill; `sessionsChanged` of them differ afterwards (0: none lost). */
  sessionsBeforeKills: z.number().int(),
  sessionsChanged: z.number().int(),
  /** Commits the sessions recorded; `commitsMissing` of them are not on the remote's branch. */
  commits: z.number().int(),
  commitsMissing: z.number().int(),
  /** Verdicts the sessions recorded; `verdictsLost` were recorded before a kill and are gone after it. */
  verdicts: z.number().int(),
  verdictsLost: z.number().int(),
  /** Events of the run's log before the kills; `eventsLost` of them are not there as they were. */
  eventsBeforeKills: z.number().int(),
  eventsLost: z.number().int(),
});
export type KeptCounts = z.infer<typeof KeptCounts>;

/** The Sentinel part of the recovery section. */
export const SentinelRecovery = z.object({
  workers: z.number().int(),
  redisWait: RedisWait,
  failovers: z.array(SentinelFailover),
  promoted: Recovery,
  workersOnNewMaster: Recovery,
  nextRequest: Recovery,
  kept: KeptCounts,
});
export type SentinelRecovery = z.infer<typeof SentinelRecovery>;

/** What the run looked like just before a kill. */
interface Snapshot {
  finished: SessionRecord[];
  events: string[];
}

async function snapshot(rig: ChaosRig): Promise<Snapshot> {
  const { sessions } = await rig.store.listSessions(rig.runId, { limit: 1_000 });
  const events = await rig.store.readEvents(rig.runId, { count: 100_000 });
  return {
    finished: sessions.filter((session) => session.finishedAt !== null),
    events: events.map((stored) => JSON.stringify(stored)),
  };
}

/** Waits until at least `count` sessions of the run have finished; how many have. */
async function finishedSessions(rig: ChaosRig, count: number): Promise<number> {
  let finished = 0;
  await rig.until(
    `${count} sessions finished`,
    async () => {
      const { sessions } = await rig.store.listSessions(rig.runId, { limit: 1_000 });
      finished = sessions.filter((session) => session.finishedAt !== null).length;
      return finished >= count;
    },
    600_000,
  );
  return finished;
}

/** Waits for a session of `role` in flight (started after `since`, no result yet). */
async function sessionInFlight(rig: ChaosRig, role: 'generator' | 'evaluator', since: number) {
  for (let from = since; ; from = Date.now()) {
    await rig.moment(role, from);
    const busy = await rig.busy();
    if (busy.role === role && busy.worker) return busy.worker;
  }
}

/** Waits until the sentinels name another master than `old`; its port. */
async function newMaster(set: SentinelSet, old: number): Promise<number> {
  const sentinel = set.sentinels[0] as number;
  await waitFor(
    sentinel,
    ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', set.masterName],
    new RegExp(`^127\\.0\\.0\\.1\\n(?!${old}\\n)\\d+\\n`),
    120_000,
  );
  const client = new Redis({ port: sentinel, host: '127.0.0.1' });
  try {
    const reply = (await client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', set.masterName)) as string[];
    return Number(reply[1]);
  } finally {
    client.disconnect();
  }
}

/** One failover: kill the master with a session of `role` in flight; the phases, and the new master. */
async function failover(
  context: { rig: ChaosRig; set: SentinelSet; processes: RedisProcesses; promotions: number[] },
  master: number,
  role: 'generator' | 'evaluator',
): Promise<{ figure: SentinelFailover; master: number; before: Snapshot }> {
  const { rig, set, processes, promotions } = context;
  const busy = await sessionInFlight(rig, role, Date.now());
  const before = await snapshot(rig);
  const at = Date.now();
  processes.kill(master);
  const next = await newMaster(set, master);
  const after = (times: readonly number[]) => times.find((time) => time > at);
  // A worker that never says it is back leaves the figure empty rather than failing the bench.
  const everyWorker = () => rig.live().every((worker) => after(worker.reconnectedAt) !== undefined);
  await rig.until('every worker on the new master', everyWorker, 120_000).catch(() => undefined);
  const seen = rig.live().map((worker) => after(worker.reconnectedAt));
  const busySeen = after(busy.reconnectedAt) ?? after(promotions) ?? at;
  await rig.until('the run moved again', () => rig.nextRequestAfter(busySeen) !== undefined, 300_000);
  const since = (time: number | undefined) => (time === undefined ? null : time - at);
  const figure = {
    role,
    promotedMs: since(after(promotions)),
    workersOnNewMasterMs: seen.every((time) => time !== undefined)
      ? since(Math.max(...(seen as number[])))
      : null,
    nextRequestMs: since(rig.nextRequestAfter(busySeen)),
  };
  // The killed node comes back as the new master's replica: the next failover has one to promote.
  await processes.start(master, [`replicaof 127.0.0.1 ${next}`]);
  await waitFor(master, ['INFO', 'replication'], /master_link_status:up/);
  await untilReplicasHealthy(set);
  return { figure, master: next, before };
}

/** What of the snapshots is still there at the end, and whether every recorded commit is on the remote. */
async function keptCounts(rig: ChaosRig, status: string, snapshots: Snapshot[]): Promise<KeptCounts> {
  const final = await snapshot(rig);
  const { sessions } = await rig.store.listSessions(rig.runId, { limit: 1_000 });
  const bySeq = new Map(sessions.map((session) => [session.seq, session]));
  // Each session as it was first seen finished: a change at any later failover counts.
  const before = new Map<number, SessionRecord>();
  for (const session of snapshots.flatMap((shot) => shot.finished))
    if (!before.has(session.seq)) before.set(session.seq, session);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const changed = [...before.values()].filter((session) => !same(session, bySeq.get(session.seq)));
  const verdictsLost = [...before.values()].reduce(
    (lost, session) =>
      lost + session.verdicts.filter((v) => !bySeq.get(session.seq)?.verdicts.some((w) => same(v, w))).length,
    0,
  );
  const tip = rig.remote.head();
  const commits = sessions.flatMap((session) => session.commits);
  const events = snapshots.at(-1)?.events ?? [];
  return {
    runStatus: status,
    sessions: sessions.length,
    sessionsBeforeKills: before.size,
    sessionsChanged: changed.length,
    commits: commits.length,
    commitsMissing: commits.filter((sha) => !tip || !rig.remote.contains(sha, tip)).length,
    verdicts: sessions.reduce((sum, session) => sum + session.verdicts.length, 0),
    verdictsLost,
    eventsBeforeKills: events.length,
    eventsLost: events.filter((event, index) => final.events[index] !== event).length,
  };
}

/** Kills the master `failovers` times during one todo run on a Sentinel set; the figures and what was kept. */
export async function measureSentinelRecovery(options: {
  failovers: number;
  log: (line: string) => void;
}): Promise<SentinelRecovery> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-recovery-sentinel-')));
  const processes = new RedisProcesses();
  const promotions: number[] = [];
  let rig: ChaosRig | undefined;
  let subscriber: Redis | undefined;
  try {
    const set = await startSentinelSet(processes, { masterName: 'nsbench' });
    subscriber = new Redis({ port: set.sentinels[0], host: '127.0.0.1' });
    await subscriber.subscribe('+switch-master');
    subscriber.on('message', () => promotions.push(Date.now()));
    rig = new ChaosRig({ root, redisUrl: sentinelUrl(set) });
    await rig.start();
    await rig.register(SPEC);
    for (let index = 0; index < WORKERS; index++) rig.startWorker();
    await rig.until(
      'the workers up',
      () => rig?.live().every((w) => w.readyAt !== undefined) ?? false,
      180_000,
    );
    const failovers: SentinelFailover[] = [];
    const snapshots: Snapshot[] = [];
    let master = set.master;
    let finished = 0;
    for (let index = 0; index < options.failovers; index++) {
      finished = await finishedSessions(rig, finished + SESSIONS_BETWEEN);
      const role = index % 2 === 0 ? 'generator' : 'evaluator';
      const done = await failover({ rig, set, processes, promotions }, master, role);
      failovers.push(done.figure);
      snapshots.push(done.before);
      master = done.master;
      const f = done.figure;
      options.log(
        `master killed in a ${role} session: promoted +${f.promotedMs} ms, workers on it +${f.workersOnNewMasterMs} ms, next request +${f.nextRequestMs} ms`,
      );
    }
    const status = await rig.finish(900_000);
    const kept = await keptCounts(rig, status, snapshots);
    options.log(`run ${status}; kept: ${JSON.stringify(kept)}`);
    const figure = (pick: (f: SentinelFailover) => number | null) =>
      recoveryFigure(failovers.map(pick).filter((ms): ms is number => ms !== null));
    return SentinelRecovery.parse({
      workers: WORKERS,
      redisWait: RedisWait.parse({}),
      failovers,
      promoted: figure((f) => f.promotedMs),
      workersOnNewMaster: figure((f) => f.workersOnNewMasterMs),
      nextRequest: figure((f) => f.nextRequestMs),
      kept,
    });
  } finally {
    subscriber?.disconnect();
    await rig?.stop();
    processes.killAll();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** The report's table of the Sentinel failovers. */
export function sentinelSection(result: SentinelRecovery | undefined, load: string): string {
  if (!result) return '';
  const ms = (value: number | null) => (value === null ? '—' : `${(value / 1000).toFixed(1)} s`);
  const seconds = (f: z.infer<typeof Recovery>) =>
    f.n === 0 ? '—' : `${f.median} s / ${f.worst} s (n=${f.n})`;
  const k = result.kept;
  return [
    '### The Redis master killed (Sentinel)',
    '',
    `The todo run on ${result.workers} \`nightshift worker\` processes over \`redis+sentinel://\` (master, replica, three sentinels: quorum 2, \`down-after-milliseconds\` 1000). The master is SIGKILLed while a session is in flight; after each failover the killed node comes back as the new master's replica. Session results wait for ${result.redisWait.replicas} replica (\`WAIT\`, at most ${result.redisWait.timeoutMs} ms; docs/operations.md).`,
    '',
    "| failover | session in flight | kill → promotion | kill → every worker on the new master | kill → the run's next model request |",
    '|---|---|---|---|---|',
    ...result.failovers.map(
      (f, index) =>
        `| ${index + 1} | ${f.role} | ${ms(f.promotedMs)} | ${ms(f.workersOnNewMasterMs)} | ${ms(f.nextRequestMs)} |`,
    ),
    `| median / worst | | ${seconds(result.promoted)} | ${seconds(result.workersOnNewMaster)} | ${seconds(result.nextRequest)} |`,
    '',
    `Kept: the run ended \`${k.runStatus}\` after ${k.sessions} sessions; of the ${k.sessionsBeforeKills} sessions finished before a kill ${k.sessionsChanged} changed afterwards, ${k.verdictsLost} of their verdicts were lost (${k.verdicts} verdicts in all); ${k.commitsMissing} of the ${k.commits} commits the sessions recorded are missing from the remote; ${k.eventsLost} of the ${k.eventsBeforeKills} events logged before the last kill were lost. "Promotion" is the sentinels' \`+switch-master\`; "on the new master" the last worker's "connected to Redis … again" line; the next model request is the first one after the busy worker's line (a request that arrives sooner left before the kill).`,
    '',
    `Load average when this part started: ${load}.`,
    '',
  ].join('\n');
}
