import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeatureList } from '../../handoff/formats.js';
import { shortTodoSpec, waitFor } from '../integration/runs/harness.js';
import {
  allEvents,
  allSessions,
  cliEnv,
  createE2eContext,
  type E2eContext,
  isWorkerOf,
  overlappingSessions,
  runCliOnce,
  startCli,
  startScriptedServer,
  type TestProcess,
  writeConfig,
} from './helpers.js';

// Two `nightshift worker` processes with separate data dirs (separate clone caches) share one run whose workspace
// is a bare git repository. Turns are made deterministic: A works alone, then B alone (A stopped gracefully), then
// both together until the end.
// A context per try: a retry on the first try's context found its run finished and could never pass.
let context: E2eContext;
beforeEach(() => {
  context = createE2eContext('remote');
});
afterEach(() => context.close());

const ENDED = ['done', 'failed', 'cancelled', 'paused'];

describe('two workers sharing a run on a bare remote', () => {
  it('finish the run together; the remote branch holds every session’s commits', async () => {
    const server = await startScriptedServer(context);
    const configFile = writeConfig(context);
    const bare = path.join(context.root, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
    const homeA = path.join(context.root, 'home-a');
    const homeB = path.join(context.root, 'home-b');
    const env = (home: string) =>
      cliEnv(context, { home, configFile, anthropicBaseURL: server.anthropicBaseURL });

    const workerA = startCli(context, ['worker'], env(homeA), 'worker-a');
    const registered = await runCliOnce(
      ['run', shortTodoSpec(context.root, 5), '--repo', bare, '--detach', '--json'],
      env(path.join(context.root, 'home-cli')),
    );
    expect(registered.code, registered.stderr).toBe(0);
    const status = JSON.parse(registered.stdout) as { id: string; workspace: string };
    const runId = status.id;
    const finishedBy = async (worker: TestProcess) =>
      (await allSessions(context.store, runId)).filter(
        (session) => session.finishedAt && isWorkerOf(session.workerId, worker.pid),
      ).length;
    const untilFinishedBy = (worker: TestProcess, count: number) =>
      waitFor(
        `${count} sessions finished by worker ${worker.pid}`,
        async () => {
          const run = await context.store.getRun(runId);
          if (ENDED.includes(run.status)) throw new Error(`the run ended early: ${run.status} ${run.detail}`);
          return (await finishedBy(worker)) >= count ? true : undefined;
        },
        300_000,
      );

    // Turn 1: A alone (the initializer and a few sessions).
    await untilFinishedBy(workerA, 3);
    const clonesOf = (home: string) =>
      fs.existsSync(path.join(home, 'clones'))
        ? fs
            .readdirSync(path.join(home, 'clones'))
            .filter((worker) => fs.existsSync(path.join(home, 'clones', worker, runId, '.git')))
        : [];
    expect(clonesOf(homeA)).toHaveLength(1);
    // Turn 2: B alone; A stops gracefully (its session in flight finishes first).
    const workerB = startCli(context, ['worker'], env(homeB), 'worker-b');
    await workerA.stop(120_000);
    expect(await workerA.exited).toBe(0);
    const byA = await finishedBy(workerA);
    await untilFinishedBy(workerB, 3);
    expect(clonesOf(homeB)).toHaveLength(1);
    const byBAlone = await finishedBy(workerB);
    // Turn 3: A again (a new process on the same data dir) beside B, until the end.
    const workerA2 = startCli(context, ['worker'], env(homeA), 'worker-a2');
    const final = await waitFor(
      'the run to end',
      async () => {
        const run = await context.store.getRun(runId);
        return ENDED.includes(run.status) ? run : undefined;
      },
      480_000,
    );
    expect(final.status, `${final.status} ${final.pausedReason ?? ''} ${final.detail ?? ''}`).toBe('done');
    expect(final.features).toMatchObject({ total: 5, passing: 5, blocked: 0 });

    // The remote branch holds the finished app and every session's commits.
    const list = FeatureList.parse(JSON.parse(git(bare, ['show', 'main:feature_list.json'])));
    expect(list.every((feature) => feature.passes)).toBe(true);
    const sessions = await allSessions(context.store, runId);
    expect(sessions.every((session) => session.finishedAt)).toBe(true);
    expect(sessions.filter((session) => /push rejected/.test(session.reason ?? ''))).toEqual([]);
    const commits = [
      ...new Set(
        sessions.flatMap((session) => [
          ...(session.endCommit ? [session.endCommit] : []),
          ...session.commits,
        ]),
      ),
    ];
    expect(commits.length).toBeGreaterThan(10);
    const missing = commits.filter(
      (sha) => spawnSync('git', ['-C', bare, 'merge-base', '--is-ancestor', sha, 'main']).status !== 0,
    );
    expect(missing).toEqual([]);
    expect(git(bare, ['rev-parse', 'main']).trim()).toBe(sessions[sessions.length - 1]?.endCommit);

    // Both workers ran sessions, each in its own clone.
    const byB = await finishedBy(workerB);
    const byA2 = await finishedBy(workerA2);
    expect(byA).toBeGreaterThanOrEqual(3);
    expect(byB).toBeGreaterThanOrEqual(3);
    expect(byA + byB + byA2).toBe(sessions.length);
    // Each data dir's clones of the finished run are removed by its own worker (its data dir's chores, on a timer of its own).
    await waitFor(
      "every clone of the finished run removed from both workers' data dirs",
      async () => (clonesOf(homeA).length + clonesOf(homeB).length === 0 ? true : undefined),
      120_000,
    );

    // Never two sessions at once.
    expect(overlappingSessions(await allEvents(context.store, runId), new Set())).toEqual([]);
    console.log(
      `[remote-workers] ${sessions.length} sessions: A alone ${byA}, B alone ${byBAlone}, then together B ${byB - byBAlone} and A ${byA2}`,
    );
  }, 900_000);
});

function git(dir: string, args: string[]): string {
  const out = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${out.stderr}`);
  return out.stdout;
}
