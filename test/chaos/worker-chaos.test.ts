/**
 * Chaos over a whole run (npm run test:chaos; not in npm test): two `nightshift worker` processes on a
 * private redis-server (append-only file); SIGKILL a worker at ≥ 10 moments covering initializer,
 * generator and evaluator sessions and the moment of a commit (`.git/index.lock` present); restart
 * Redis twice (clean SHUTDOWN, then SIGKILL); leave a stale `index.lock`; kill the app under test
 * during an evaluation. The run must finish, every commit seen stays in history, the feature list is
 * valid, no two sessions overlap, and each recovery time is reported.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../handoff/feature-list.js';
import { readVerdicts } from '../../handoff/verdicts.js';
import { RunStore } from '../../orchestrator/run-store.js';
import demoPolicy from '../../testkit/policies/demo.js';
import { startModelServer } from '../../testkit/server.js';
import type { ModelServer } from '../../testkit/types.js';
import { runCli } from '../integration/cli/helpers.js';
import {
  freePort,
  killWorker,
  OwnRedis,
  overlappingSessions,
  processesIn,
  type RequestMark,
  recordingPolicy,
  sleep,
  startWorkerProcess,
  type WorkerProcess,
} from './helpers.js';

type Trigger = 'initializer' | 'generator' | 'evaluator' | 'commit' | 'random';
// Random kills land anywhere, recoveries included (a worker killed while idle); the others wait for their moment.
const PLAN: Trigger[] = [
  'initializer',
  'random',
  'commit',
  'generator',
  'evaluator',
  'random',
  'commit',
  'generator',
  'evaluator',
  'random',
  'commit',
  'generator',
  'evaluator',
  'commit',
];

interface Disruption {
  what: string;
  role: string;
  at: number;
  recoveryMs?: number;
}

const prefix = `nschaos${randomBytes(3).toString('hex')}:`;
let root: string;
let workspace: string;
let redisServer: OwnRedis;
let server: ModelServer;
let env: NodeJS.ProcessEnv;
let client: Redis;
let store: RunStore;
const marks: RequestMark[] = [];
const workers: WorkerProcess[] = [];
const heads = new Set<string>();

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync('/tmp/ns-chaos-'));
  workspace = path.join(root, 'todo');
  fs.mkdirSync(path.join(root, 'redis'));
  redisServer = new OwnRedis(await freePort(), path.join(root, 'redis'));
  await redisServer.start();
  server = await startModelServer({ policy: recordingPolicy(demoPolicy, marks) });
  env = {
    ...process.env,
    REDIS_URL: redisServer.url,
    NIGHTSHIFT_HOME: path.join(root, 'home'),
    NIGHTSHIFT_KEY_PREFIX: prefix,
    NIGHTSHIFT_LOG_LEVEL: 'warn',
    ANTHROPIC_API_KEY: 'sk-ant-chaos-0000000000',
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
  };
  delete env.NIGHTSHIFT_CONFIG;
  client = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  client.on('error', () => undefined);
  store = new RunStore(client, { prefix });
}, 60_000);

afterAll(async () => {
  for (const worker of workers) await killWorker(worker);
  for (const pid of processesIn(workspace)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  client?.disconnect();
  await server?.close();
  await redisServer?.stop('kill');
  fs.rmSync(root, { recursive: true, force: true });
});

function gitHead(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: workspace,
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
  } catch {
    return undefined;
  }
}

async function runStatus(id: string): Promise<{ status: string; seq: number } | undefined> {
  try {
    return await store.getRun(id);
  } catch {
    return undefined;
  }
}

/** The worker running the run's current session (its id carries the pid), else the first live one. */
async function busyWorker(id: string): Promise<{ worker: WorkerProcess; role: string }> {
  const run = await runStatus(id);
  const session = run ? await store.getSession(id, run.seq).catch(() => undefined) : undefined;
  const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(session?.workerId ?? '')?.[1]);
  const worker = workers.find((candidate) => candidate.child.pid === pid) ?? (workers[0] as WorkerProcess);
  return { worker, role: session && !session.finishedAt ? session.role : 'idle' };
}

/** Waits for the moment a trigger names (bounded: after 90 s it fires anyway). */
async function momentOf(trigger: Trigger, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 90_000;
  if (trigger === 'random') return sleep(500 + Math.random() * 4_000);
  while (Date.now() < deadline && !done()) {
    if (trigger === 'commit') {
      if (fs.existsSync(path.join(workspace, '.git', 'index.lock'))) return;
      await sleep(5);
      continue;
    }
    const last = marks.at(-1);
    if (last && last.role === trigger && Date.now() - last.at < 1_500) {
      await sleep(Math.random() * 800);
      return;
    }
    await sleep(50);
  }
}

describe('a whole run under chaos', () => {
  it(
    'finishes with nothing lost, one session at a time, and reports each recovery',
    async () => {
      const started = await runCli(
        [
          'run',
          path.resolve('examples/todo/app_spec.md'),
          '--workspace',
          workspace,
          '--detach',
          '--model',
          'anthropic:scripted',
        ],
        { env, cwd: root },
      );
      expect(started.code, started.stderr).toBe(0);
      const id = started.stdout.trim();
      workers.push(startWorkerProcess(env, root), startWorkerProcess(env, root));
      let ended = false;
      const done = () => ended;
      const headPoller = (async () => {
        while (!ended) {
          const sha = gitHead();
          if (sha) heads.add(sha);
          await sleep(200);
        }
      })();
      const disruptions: Disruption[] = [];
      const chaos = (async () => {
        for (const [index, trigger] of PLAN.entries()) {
          await momentOf(trigger, done);
          if (ended) return;
          const { worker, role } = await busyWorker(id);
          const at = Date.now();
          await killWorker(worker);
          if (index === 2) fs.writeFileSync(path.join(workspace, '.git', 'index.lock'), '');
          workers[workers.indexOf(worker)] = startWorkerProcess(env, root);
          const entry: Disruption = {
            what: `SIGKILL worker (${trigger}${index === 2 ? ', stale index.lock left' : ''})`,
            role,
            at,
          };
          disruptions.push(entry);
          if (index === 4 || index === 8) {
            const how = index === 4 ? 'shutdown' : 'kill';
            const redisAt = Date.now();
            await redisServer.stop(how);
            await sleep(2_000);
            await redisServer.start();
            const redisEntry: Disruption = {
              what: `Redis restarted (${how})`,
              role: (await busyWorker(id)).role,
              at: redisAt,
            };
            disruptions.push(redisEntry);
          }
          if (index === 6) {
            await momentOf('evaluator', done);
            await sleep(1_000);
            const apps = processesIn(workspace);
            const appAt = Date.now();
            for (const pid of apps) process.kill(pid, 'SIGKILL');
            const appEntry: Disruption = {
              what: `app under test killed (${apps.length} processes)`,
              role: 'evaluator',
              at: appAt,
            };
            disruptions.push(appEntry);
          }
        }
      })();
      let final: { status: string } | undefined;
      const deadline = Date.now() + 25 * 60_000;
      while (Date.now() < deadline) {
        final = await runStatus(id);
        if (final && ['done', 'failed', 'cancelled'].includes(final.status)) break;
        await sleep(1_000);
      }
      ended = true;
      await Promise.all([chaos, headPoller]);
      // Recovery: from the disruption to the next model request of the run.
      for (const entry of disruptions) {
        const next = marks.find((mark) => mark.at > entry.at);
        if (next) entry.recoveryMs = next.at - entry.at;
      }

      const report = disruptions.map(
        (entry, i) =>
          `| ${i + 1} | ${entry.what} | ${entry.role} | ${entry.recoveryMs === undefined ? 'n/a' : (entry.recoveryMs / 1000).toFixed(1)} |`,
      );
      console.log(
        [
          '| # | disruption | session in flight | recovery (s, to the next model request) |',
          '|---|---|---|---|',
          ...report,
        ].join('\n'),
      );
      const run = await store.getRun(id);
      console.log(
        `run ${run.status}: ${JSON.stringify(run.features)}, ${run.counters.sessions} sessions, ${heads.size} heads seen`,
      );

      expect(final?.status, JSON.stringify(run)).toBe('done');
      const kills = disruptions.filter((entry) => entry.what.startsWith('SIGKILL'));
      expect(kills.length).toBeGreaterThanOrEqual(10);
      const roles = new Set(kills.map((entry) => entry.role));
      for (const role of ['initializer', 'generator', 'evaluator'])
        expect(roles, [...roles].join()).toContain(role);
      const list = await readFeatureList(workspace);
      expect(list.length).toBeGreaterThan(0);
      expect(list.every((feature) => feature.passes)).toBe(true);
      const finalHead = gitHead() as string;
      for (const sha of heads) {
        const ok = (() => {
          try {
            execFileSync('git', ['merge-base', '--is-ancestor', sha, finalHead], {
              cwd: workspace,
              stdio: 'pipe',
            });
            return true;
          } catch {
            return false;
          }
        })();
        expect(ok, `commit ${sha} seen during the run is not in the final history`).toBe(true);
      }
      expect(overlappingSessions(marks)).toEqual([]);
      const { records } = await readVerdicts(workspace);
      expect(records.length).toBeGreaterThan(0);
    },
    30 * 60_000,
  );
});
