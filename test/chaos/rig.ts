/**
 * One todo run on a bare remote, worked by `nightshift worker` processes on a private redis-server, with the
 * hooks the chaos suite and the recovery bench disrupt it through: the moments (a session of a role started,
 * a commit in progress, a push in progress) and the disruptions (SIGKILL of the worker running the session).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { FailoverConfig } from '../../orchestrator/failover.js';
import { bullPrefix, SESSION_QUEUE } from '../../orchestrator/queues.js';
import { openRedis } from '../../orchestrator/redis-client.js';
import { RunStore } from '../../orchestrator/run/index.js';
import demoPolicy from '../../testkit/policies/demo.js';
import { startModelServer } from '../../testkit/server.js';
import type { ModelServer } from '../../testkit/types.js';
import { runCli } from '../integration/cli/helpers.js';
import {
  ChaosRemote,
  freePort,
  killWorker,
  OwnRedis,
  processesIn,
  type RequestMark,
  recordingPolicy,
  sleep,
  startWorkerProcess,
  type WorkerProcess,
} from './helpers.js';

/** Phases of a recovery, in ms after the kill (undefined: not seen). */
export interface RecoveryPhases {
  workerUpMs?: number | undefined;
  backInWaitMs?: number | undefined;
  sessionStartedMs?: number | undefined;
}

/** A moment to disrupt at: the first request of a session of a role, or a commit in progress. */
export type Moment = 'initializer' | 'generator' | 'evaluator' | 'commit';

/** Where the rig keeps things, and the worker settings it writes to the workers' config file. */
export interface RigOptions {
  root: string;
  /** The workers' data dir (the clones live there); default `<root>/home`. */
  dataDir?: string;
  failover?: FailoverConfig;
  /** Work on this Redis (e.g. a Sentinel set) instead of a redis-server of the rig's own. */
  redisUrl?: string;
}

const ENDED = ['done', 'failed', 'cancelled'];

/** The processes and handles of one chaos run. */
export class ChaosRig {
  readonly marks: RequestMark[] = [];
  readonly workers: WorkerProcess[] = [];
  readonly remote: ChaosRemote;
  readonly dataDir: string;
  readonly prefix = `nschaos${Math.random().toString(16).slice(2, 8)}:`;
  runId = '';
  /** The rig's own redis-server (absent when `redisUrl` was given). */
  redis!: OwnRedis;
  /** The Redis URL the workers and the rig use. */
  redisUrl = '';
  store!: RunStore;
  private server!: ModelServer;
  private client!: Redis;
  private env!: NodeJS.ProcessEnv;

  constructor(private readonly options: RigOptions) {
    this.remote = new ChaosRemote(path.join(options.root, 'remote.git'));
    this.dataDir = options.dataDir ?? path.join(options.root, 'home');
  }

  /** Starts Redis, the scripted model and the remote; writes the workers' config. */
  async start(): Promise<void> {
    const { root } = this.options;
    if (this.options.redisUrl) this.redisUrl = this.options.redisUrl;
    else {
      fs.mkdirSync(path.join(root, 'redis'), { recursive: true });
      this.redis = new OwnRedis(await freePort(), path.join(root, 'redis'));
      await this.redis.start();
      this.redisUrl = this.redis.url;
    }
    this.server = await startModelServer({ policy: recordingPolicy(demoPolicy, this.marks) });
    this.remote.create();
    const configFile = path.join(root, 'nightshift.config.json');
    const worker = this.options.failover ? { failover: this.options.failover } : {};
    fs.writeFileSync(configFile, JSON.stringify({ dataDir: this.dataDir, worker }));
    this.env = {
      ...process.env,
      REDIS_URL: this.redisUrl,
      NIGHTSHIFT_CONFIG: configFile,
      NIGHTSHIFT_HOME: this.dataDir,
      NIGHTSHIFT_KEY_PREFIX: this.prefix,
      NIGHTSHIFT_LOG_LEVEL: 'warn',
      ANTHROPIC_API_KEY: 'sk-ant-chaos-0000000000',
      ANTHROPIC_BASE_URL: this.server.anthropicBaseURL,
    };
    delete this.env.NIGHTSHIFT_STALLED_INTERVAL_MS;
    this.client = openRedis(this.redisUrl);
    this.client.on('error', () => undefined);
    this.store = new RunStore(this.client, { prefix: this.prefix });
  }

  /** Registers the todo run on the remote (`nightshift run --repo … --detach`). */
  async register(spec: string): Promise<string> {
    const started = await runCli(
      ['run', spec, '--repo', this.remote.dir, '--detach', '--model', 'anthropic:scripted'],
      { env: this.env, cwd: this.options.root },
    );
    if (started.code !== 0) throw new Error(`nightshift run failed: ${started.stderr}`);
    this.runId = started.stdout.trim();
    return this.runId;
  }

  startWorker(): WorkerProcess {
    const worker = startWorkerProcess(this.env, this.options.root);
    this.workers.push(worker);
    return worker;
  }

  /** Workers that exited without being killed (a crash), with their stderr tails. */
  crashed(): string[] {
    return this.workers
      .filter((worker) => !worker.killed && !this.live().includes(worker))
      .map(
        (worker) =>
          `worker ${worker.child.pid} exited ${worker.child.exitCode ?? worker.child.signalCode}: ${worker.stderr().slice(-1_000)}`,
      );
  }

  /** Live workers (not killed, not exited). */
  live(): WorkerProcess[] {
    return this.workers.filter(
      (worker) => worker.child.exitCode === null && worker.child.signalCode === null,
    );
  }

  async status(): Promise<{ status: string; seq: number } | undefined> {
    try {
      return await this.store.getRun(this.runId);
    } catch {
      return undefined;
    }
  }

  async ended(): Promise<boolean> {
    const run = await this.status();
    return run !== undefined && ENDED.includes(run.status);
  }

  /** The worker running the run's current session (its id carries the pid), and that session's role. */
  async busy(): Promise<{ worker: WorkerProcess | undefined; role: string }> {
    const run = await this.status();
    const session = run ? await this.store.getSession(this.runId, run.seq).catch(() => undefined) : undefined;
    const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(session?.workerId ?? '')?.[1]);
    const worker = this.live().find((candidate) => candidate.child.pid === pid);
    return { worker, role: session && !session.finishedAt ? session.role : 'idle' };
  }

  /** SIGKILLs the worker running the session and starts a new one in its place; the kill's time. */
  async killBusy(): Promise<{ at: number; role: string; killed: boolean; restarted?: WorkerProcess }> {
    const { worker, role } = await this.busy();
    const at = Date.now();
    if (!worker) return { at, role, killed: false };
    await killWorker(worker);
    return { at, role, killed: true, restarted: this.startWorker() };
  }

  /** A commit in progress in any worker's clone (`.git/index.lock` present). */
  private committing(): boolean {
    const clones = path.join(this.dataDir, 'clones');
    let workers: string[];
    try {
      workers = fs.readdirSync(clones);
    } catch {
      return false;
    }
    return workers.some((worker) =>
      fs.existsSync(path.join(clones, worker, this.runId, '.git', 'index.lock')),
    );
  }

  /**
   * Waits for a moment after `since`: a model request of a session of the role (then up to 0.8 s more, 0.15 s for
   * the short initializer, so the kill lands inside the session rather than on its first request), or a commit in
   * progress.
   * Throws when the run ends first or nothing comes within `timeoutMs`.
   */
  async moment(moment: Moment, since: number, timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let checked = 0;
    while (Date.now() < deadline) {
      if (moment === 'commit') {
        if (this.committing()) return;
      } else if (this.marks.some((mark) => mark.at > since && mark.role === moment)) {
        // The initializer is one session of a few quick requests: a long wait would land the kill on the generator.
        await sleep(moment === 'initializer' ? 50 + Math.random() * 100 : Math.random() * 800);
        return;
      }
      if (Date.now() - checked > 1_000) {
        checked = Date.now();
        if (await this.ended()) throw new Error(`the run ended before the moment "${moment}" came`);
      }
      await sleep(moment === 'commit' ? 5 : 50);
    }
    throw new Error(`no "${moment}" moment within ${timeoutMs / 1000} s`);
  }

  /** Waits until `check` holds, failing when the run ends first. */
  async until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 300_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      if (await this.ended()) throw new Error(`the run ended before ${what}`);
      await sleep(50);
    }
    throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
  }

  /** The first model request after `at` (the run is moving again), or undefined. */
  nextRequestAfter(at: number): number | undefined {
    return this.marks.find((mark) => mark.at > at)?.at;
  }

  /**
   * Where the time after a kill at `at` went: the restarted worker up, the job back in the wait list (BullMQ's
   * `stalled` event, whose stream id is its time), the session started again (the run's `session.started`),
   * each in ms after the kill.
   */
  async phases(at: number, restarted?: WorkerProcess): Promise<RecoveryPhases> {
    const since = (time: number | undefined) => (time === undefined ? undefined : time - at);
    const stream = `${bullPrefix(this.prefix)}:${SESSION_QUEUE}:events`;
    const entries = await this.client.xrange(stream, `${at}-0`, '+', 'COUNT', 200);
    const stalled = entries.find(([, fields]) => fields[1] === 'stalled');
    const events = await this.store.readEvents(this.runId, { after: `${at}-0`, count: 200 });
    const started = events.find((stored) => stored.event.type === 'session.started');
    return {
      workerUpMs: since(restarted?.readyAt),
      backInWaitMs: since(stalled ? Number(stalled[0].split('-')[0]) : undefined),
      sessionStartedMs: since(started ? Date.parse(started.event.at) : undefined),
    };
  }

  /**
   * Waits for the run's next model request after `at`; the ms it took. After a kill, a request the dead worker
   * sent just before it may still arrive: then only requests after the next `session.started` count.
   */
  async recovery(at: number, afterKill: boolean, timeoutMs = 300_000): Promise<number> {
    let from = at;
    await this.until(
      'the run moved again',
      async () => {
        if (afterKill) {
          const started = (await this.phases(at)).sessionStartedMs;
          if (started === undefined) return false;
          from = at + started;
        }
        return this.nextRequestAfter(from) !== undefined;
      },
      timeoutMs,
    );
    return (this.nextRequestAfter(from) as number) - at;
  }

  /** Waits for the run to end; its final status. */
  async finish(timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const run = await this.status();
      if (run && ENDED.includes(run.status)) return run.status;
      await sleep(1_000);
    }
    return (await this.status())?.status ?? 'unknown';
  }

  /** Pids of the app under test (started in a clone; the harness's own git commands excluded). */
  appProcesses(): number[] {
    return processesIn(path.join(this.dataDir, 'clones')).filter((pid) => {
      try {
        const argv0 = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
        return path.basename(argv0) !== 'git';
      } catch {
        return false;
      }
    });
  }

  /** The run, its last sessions and every worker's stderr tail, for a failure message. */
  async diagnose(): Promise<string> {
    const run = await this.store.getRun(this.runId).catch((error: Error) => error.message);
    const seq = typeof run === 'string' ? 0 : run.seq;
    const sessions = [];
    for (let index = Math.max(1, seq - 3); index <= seq; index++)
      sessions.push(await this.store.getSession(this.runId, index).catch(() => undefined));
    const logs = this.workers.map(
      (worker) =>
        `--- worker ${worker.child.pid} (exit ${worker.child.exitCode ?? worker.child.signalCode}):\n${worker.stderr().slice(-3_000)}`,
    );
    return [JSON.stringify({ run, sessions }, null, 1), ...logs].join('\n');
  }

  async stop(): Promise<void> {
    for (const worker of this.workers) await killWorker(worker);
    killProcesses(this.appProcesses());
    this.client?.disconnect();
    await this.server?.close();
    await this.redis?.stop('kill');
  }
}

/** SIGKILLs each process still there; returns how many were (one may exit between being listed and the kill). */
export function killProcesses(pids: readonly number[]): number {
  let killed = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // Already gone.
    }
  }
  return killed;
}
