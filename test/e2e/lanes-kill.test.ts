import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../orchestrator/run/index.js';
import { shortTodoSpec, waitFor } from '../integration/runs/harness.js';
import {
  allEvents,
  allSessions,
  cliEnv,
  createE2eContext,
  type E2eContext,
  isWorkerOf,
  runCliOnce,
  startCli,
  startScriptedServer,
  type TestProcess,
  writeConfig,
} from './helpers.js';

// A `nightshift worker` process running three lanes of one run at once is SIGKILLed; a replacement takes over.
// Only the three sessions in flight are lost (and run again from the same seq); the run finishes with every lane's
// commits in the run branch.
let context: E2eContext;
beforeAll(() => {
  context = createE2eContext('lanes-kill');
});
afterAll(() => context.close());

const ENDED = ['done', 'incomplete', 'failed', 'cancelled', 'paused'];

describe('a worker with three lanes in flight SIGKILLed', () => {
  it('loses only the sessions in flight: they run again, the run finishes, no commit lost', async () => {
    const server = await startScriptedServer(context);
    const configFile = writeConfig(context, { lanes: 3 });
    let homes = 0;
    const env = () =>
      cliEnv(context, {
        home: path.join(context.root, `home-${++homes}`),
        configFile,
        anthropicBaseURL: server.anthropicBaseURL,
        extra: { NIGHTSHIFT_STALLED_INTERVAL_MS: '2000' },
      });
    const startWorker = () =>
      startCli(context, ['worker', '--concurrency', '3'], env(), `worker-${homes + 1}`);
    const first = startWorker();

    const workspace = path.join(context.root, 'todo');
    // All eight features: once F-003 passes, F-005 to F-008 are ready at once (testkit dependencies).
    const registered = await runCliOnce(
      ['run', shortTodoSpec(context.root, 8), '--workspace', workspace, '--detach', '--json'],
      env(),
    );
    expect(registered.code, registered.stderr).toBe(0);
    const runId = (JSON.parse(registered.stdout) as { id: string }).id;

    let most = 0;
    const inFlight = await waitFor(
      'three lane sessions in flight on the first worker',
      async () => {
        const sessions = await allSessions(context.store, runId);
        const open = sessions.filter(
          (session) =>
            session.lane !== null && !session.finishedAt && isWorkerOf(session.workerId, first.pid),
        );
        most = Math.max(most, open.length);
        return open.length >= 3 ? open : undefined;
      },
      300_000,
    ).catch(async (error: unknown) => {
      // What the run did instead: at most how many lanes were in a session at once, and its sessions.
      const run = await context.store.getRun(runId);
      const sessions = (await allSessions(context.store, runId)).map(
        (session) =>
          `${session.seq} lane ${session.lane} ${session.role} ${session.featureIds.join(',')} ${session.outcome ?? 'in flight'} ${session.startedAt}–${session.finishedAt ?? ''}`,
      );
      throw new Error(
        `${(error as Error).message}; at most ${most} at once; run ${run.status} (${run.detail ?? ''})\n${sessions.join('\n')}`,
      );
    });
    expect(inFlight.length).toBeGreaterThanOrEqual(3);
    await first.kill();
    // What the kill cut short: the first worker's sessions still without a result (one may have ended meanwhile).
    const killed = new Set(
      (await allSessions(context.store, runId))
        .filter((session) => !session.finishedAt && isWorkerOf(session.workerId, first.pid))
        .map((session) => session.seq),
    );
    expect(killed.size).toBeGreaterThanOrEqual(2);
    const replacement: TestProcess = startWorker();

    const final = await waitFor(
      'the run to end',
      async () => {
        const run = await context.store.getRun(runId);
        return ENDED.includes(run.status) ? run : undefined;
      },
      420_000,
    );
    expect(final.status, `${final.status} ${final.detail ?? ''}`).toBe('done');
    expect(final.features).toMatchObject({ total: 8, passing: 8, blocked: 0 });

    const sessions = await allSessions(context.store, runId);
    const started = (await allEvents(context.store, runId)).flatMap(({ event }) =>
      event.type === 'session.started' ? [event] : [],
    );
    // The killed sessions ran again, from the same seq, on the replacement; no other session ran twice.
    for (const seq of killed) {
      const workers = started.filter((event) => event.seq === seq).map((event) => event.workerId);
      expect(workers.some((id) => isWorkerOf(id, first.pid))).toBe(true);
      expect(workers.some((id) => isWorkerOf(id, replacement.pid))).toBe(true);
    }
    const twice = [...new Set(started.map((event) => event.seq))].filter(
      (seq) => started.filter((event) => event.seq === seq).length > 1,
    );
    expect(twice.sort((a, b) => a - b)).toEqual([...killed].sort((a, b) => a - b));
    expect(sessions.every((session: SessionRecord) => session.finishedAt !== null)).toBe(true);

    // No commit lost: every commit a finished session recorded is in the run branch's history.
    const recorded = sessions.flatMap((session) => session.commits);
    expect(recorded.length).toBeGreaterThan(10);
    const lost = recorded.filter(
      (sha) => spawnSync('git', ['-C', workspace, 'merge-base', '--is-ancestor', sha, 'HEAD']).status !== 0,
    );
    expect(lost).toEqual([]);
    await replacement.stop();
  }, 780_000);
});
