import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../handoff/feature-list.js';
import { FeatureList } from '../../handoff/formats.js';
import type { RunRecord, SessionRecord } from '../../orchestrator/run/index.js';
import { runLockHolder } from '../../orchestrator/run/index.js';
import { shortTodoSpec, waitFor } from '../integration/runs/harness.js';
import {
  allEvents,
  allSessions,
  cliEnv,
  createE2eContext,
  type E2eContext,
  isWorkerOf,
  overlappingIntervals,
  overlappingSessions,
  runCliOnce,
  serverRequestCount,
  sleep,
  startCli,
  startScriptedServer,
  type TestProcess,
  writeConfig,
} from './helpers.js';

// Two `nightshift worker` processes share a run; the one running a session is SIGKILLed mid-session (once in a
// generator, once in an evaluator) and replaced. The run must still finish with nothing lost and never two
// sessions of the run at once.
let context: E2eContext;
beforeAll(() => {
  context = createE2eContext('kill');
});
afterAll(() => context.close());

const ENDED = ['done', 'failed', 'cancelled', 'paused'];

interface Kill {
  role: SessionRecord['role'];
  seq: number;
  workerId: string;
  at: number;
}

describe('a worker SIGKILLed mid-session', () => {
  it('costs at most the session in flight: the run finishes, no commit lost, sessions never overlap', async () => {
    const server = await startScriptedServer(context);
    const configFile = writeConfig(context);
    let homes = 0;
    const env = () =>
      cliEnv(context, {
        home: path.join(context.root, `home-${++homes}`),
        configFile,
        anthropicBaseURL: server.anthropicBaseURL,
        extra: { NIGHTSHIFT_STALLED_INTERVAL_MS: '2000' },
      });
    const live: TestProcess[] = [];
    const startWorker = () => {
      const workerEnv = env();
      const worker = startCli(context, ['worker'], workerEnv, `worker-${homes}`);
      live.push(worker);
      return worker;
    };
    startWorker();
    startWorker();

    const workspace = path.join(context.root, 'todo');
    const registered = await runCliOnce(
      // Four features: a generator and an evaluator to kill, and sessions after both kills.
      ['run', shortTodoSpec(context.root, 4), '--workspace', workspace, '--detach', '--json'],
      env(),
    );
    expect(registered.code, registered.stderr).toBe(0);
    const runId = (JSON.parse(registered.stdout) as { id: string }).id;
    const getRun = () => context.store.getRun(runId);

    // Who holds the run's lock, sampled all along (checked against the sessions that started).
    const lockTokens: string[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const token = await runLockHolder(context.redis, context.prefix, runId);
        if (token && lockTokens[lockTokens.length - 1] !== token) lockTokens.push(token);
        await sleep(100);
      }
    })();

    const kills: Kill[] = [];
    try {
      for (const role of ['generator', 'evaluator'] as const) {
        const kill = await killDuring(role);
        if (!kill) break;
        kills.push(kill);
        startWorker();
      }
      const final = await waitFor(
        'the run to end',
        async () => {
          const run = await getRun();
          return ENDED.includes(run.status) ? run : undefined;
        },
        480_000,
      );
      expect(final.status, `${final.status} ${final.pausedReason ?? ''} ${final.detail ?? ''}`).toBe('done');
      expect(final.features).toMatchObject({ total: 4, passing: 4, blocked: 0 });
    } finally {
      sampling = false;
      await sampler;
    }
    expect(kills.map((kill) => kill.role)).toEqual(['generator', 'evaluator']);

    // The feature list is valid and every feature passes.
    FeatureList.parse(JSON.parse(fs.readFileSync(path.join(workspace, 'feature_list.json'), 'utf8')));
    expect((await readFeatureList(workspace)).every((feature) => feature.passes)).toBe(true);

    // No commit lost: every commit a session recorded, and every commit HEAD ever pointed at, is in the history.
    const sessions = await allSessions(context.store, runId);
    const recorded = sessions.flatMap((session) => [
      ...(session.endCommit ? [session.endCommit] : []),
      ...session.commits,
    ]);
    const everHead = git(workspace, ['log', '-g', '--format=%H', 'HEAD']).split('\n').filter(Boolean);
    expect(recorded.length).toBeGreaterThan(10);
    const lost = [...new Set([...recorded, ...everHead])].filter(
      (sha) => spawnSync('git', ['-C', workspace, 'merge-base', '--is-ancestor', sha, 'HEAD']).status !== 0,
    );
    expect(lost).toEqual([]);

    // Never two sessions at once: from the session records, the event log and the lock.
    const killedWorkers = new Set(kills.map((kill) => kill.workerId));
    expect(overlappingIntervals(sessions)).toEqual([]);
    const events = await allEvents(context.store, runId);
    expect(overlappingSessions(events, killedWorkers)).toEqual([]);
    const started = events.flatMap(({ event }) => (event.type === 'session.started' ? [event] : []));
    for (const kill of kills) {
      // The killed session started again, from the same seq, on another worker.
      const again = started.filter((event) => event.seq === kill.seq);
      expect(again.map((event) => event.workerId)).toContain(kill.workerId);
      expect(again.some((event) => event.workerId !== kill.workerId)).toBe(true);
    }
    const startedTokens = new Set(started.map((event) => `${event.jobId}/${event.workerId}`));
    expect(lockTokens.length).toBeGreaterThan(5);
    expect(lockTokens.filter((token) => !startedTokens.has(token))).toEqual([]);
    const lockSeqs = lockTokens.map((token) => Number(/-(\d+)\//.exec(token)?.[1]));
    expect(lockSeqs).toEqual([...lockSeqs].sort((a, b) => a - b));

    for (const kill of kills) {
      const next = started.find((event) => Date.parse(event.at) > kill.at);
      const recoveryMs = next ? Date.parse(next.at) - kill.at : Number.NaN;
      console.log(
        `[worker-kill] killed ${kill.role} session ${kill.seq}: next session.started after ${(recoveryMs / 1000).toFixed(1)} s`,
      );
    }
    console.log(
      `[worker-kill] ${sessions.length} sessions, ${lockTokens.length} lock holders seen, ${recorded.length} commits checked`,
    );

    /** Waits for a session of `role` that has made at least two model requests, and SIGKILLs its worker. */
    async function killDuring(role: SessionRecord['role']): Promise<Kill | undefined> {
      for (;;) {
        const run: RunRecord = await getRun();
        if (ENDED.includes(run.status)) return undefined;
        const { sessions: latest } = await context.store.listSessions(runId, {
          offset: 0,
          limit: 1,
          order: 'desc',
        });
        const session = latest[0];
        const worker = session && live.find((candidate) => isWorkerOf(session.workerId, candidate.pid));
        if (session && worker && session.role === role && !session.finishedAt) {
          const base = await serverRequestCount(server.url);
          for (;;) {
            const current = await context.store.getSession(runId, session.seq);
            if (current?.finishedAt || current?.workerId !== session.workerId) break;
            if ((await serverRequestCount(server.url)) >= base + 2) {
              const at = Date.now();
              await worker.kill();
              live.splice(live.indexOf(worker), 1);
              return { role, seq: session.seq, workerId: session.workerId, at };
            }
            await sleep(25);
          }
        }
        await sleep(50);
      }
    }
  }, 600_000);
});

function git(dir: string, args: string[]): string {
  const out = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${out.stderr}`);
  return out.stdout;
}
