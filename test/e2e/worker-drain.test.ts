import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../handoff/feature-list.js';
import { shortTodoSpec, waitFor } from '../integration/runs/harness.js';
import {
  allEvents,
  allSessions,
  cliEnv,
  createE2eContext,
  DEMO_POLICY,
  type E2eContext,
  isWorkerOf,
  runCliOnce,
  serverRequestCount,
  startCli,
  startScriptedServer,
  writeConfig,
} from './helpers.js';

// A `nightshift worker` gets SIGTERM (as from `docker compose stop`) while a generator session is in flight. It must
// take no new job, end that session itself within its grace period (finished, or checkpointed when the grace ran
// out) and exit 0; a second worker carries the run to its end. Nothing is left for failover to recover.
let context: E2eContext;
beforeAll(() => {
  context = createE2eContext('drain');
});
afterAll(() => context.close());

describe('SIGTERM drains a worker', () => {
  it('the session in flight ends on its worker within the grace period; another worker finishes the run', async () => {
    // Slow replies, so the generator is still working when the signal comes and the 2 s grace runs out.
    const server = await startScriptedServer(context, DEMO_POLICY, { latencyMs: 300 });
    const configFile = writeConfig(context);
    const config = JSON.parse(fs.readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(configFile, JSON.stringify({ ...config, worker: { shutdownGraceSeconds: 2 } }));
    let homes = 0;
    const env = () =>
      cliEnv(context, {
        home: path.join(context.root, `home-${++homes}`),
        configFile,
        anthropicBaseURL: server.anthropicBaseURL,
      });
    const first = startCli(context, ['worker'], env(), 'worker-first');
    const workspace = path.join(context.root, 'todo');
    const registered = await runCliOnce(
      ['run', shortTodoSpec(context.root, 1), '--workspace', workspace, '--detach', '--json'],
      env(),
    );
    expect(registered.code, registered.stderr).toBe(0);
    const runId = (JSON.parse(registered.stdout) as { id: string }).id;

    // A generator session of the first worker that has made a model request.
    const inFlight = await waitFor('a generator session in flight', async () => {
      const { sessions } = await context.store.listSessions(runId, { offset: 0, limit: 1, order: 'desc' });
      const latest = sessions[0];
      return latest &&
        !latest.finishedAt &&
        latest.role === 'generator' &&
        isWorkerOf(latest.workerId, first.pid)
        ? latest
        : undefined;
    });
    const base = await serverRequestCount(server.url);
    await waitFor('a model request of the generator', async () =>
      (await serverRequestCount(server.url)) > base ? true : undefined,
    );
    startCli(context, ['worker'], env(), 'worker-second');
    first.child.kill('SIGTERM');
    const code = await first.exited;
    expect(code, fs.readFileSync(first.logFile, 'utf8').slice(-2000)).toBe(0);

    // The drained worker recorded the session's end itself (finished, or checkpointed at the grace period's end).
    const ended = await context.store.getSession(runId, inFlight.seq);
    expect(ended?.finishedAt).not.toBeNull();
    expect(['completed', 'checkpointed', 'aborted']).toContain(ended?.outcome);
    expect(ended?.workerId).toBe(inFlight.workerId);

    const final = await waitFor(
      'the run to end',
      async () => {
        const run = await context.store.getRun(runId);
        return ['done', 'failed', 'cancelled', 'paused'].includes(run.status) ? run : undefined;
      },
      300_000,
    );
    expect(final.status, `${final.status} ${final.detail ?? ''}`).toBe('done');
    expect((await readFeatureList(workspace)).every((feature) => feature.passes)).toBe(true);

    // Nothing for failover: the drained session never started again elsewhere, and every later one ran on the second.
    const started = (await allEvents(context.store, runId)).flatMap(({ event }) =>
      event.type === 'session.started' ? [event] : [],
    );
    expect(started.filter((event) => event.seq === inFlight.seq)).toHaveLength(1);
    const later = (await allSessions(context.store, runId)).filter((session) => session.seq > inFlight.seq);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((session) => !isWorkerOf(session.workerId, first.pid))).toBe(true);
    console.log(
      `[worker-drain] session ${inFlight.seq} (${inFlight.role}) ended ${ended?.outcome} on the drained worker; ${later.length} sessions after it on the second`,
    );
  }, 480_000);
});
