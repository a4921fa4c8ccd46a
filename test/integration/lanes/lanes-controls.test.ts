import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cancelRun } from '../../../orchestrator/controls.js';
import { startRun } from '../../../orchestrator/start-run.js';
import demoPolicy from '../../../testkit/policies/demo.js';
import { createRunHarness, type RunHarness, shortTodoSpec, waitFor } from '../runs/harness.js';

// Lanes on a shared remote, and a cancel reaching every lane (real Redis, git, Chromium, in-process workers).
let harness: RunHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });

describe('lanes across workers and controls', () => {
  it('on a remote (--repo): lanes push their branches, the merge queue pushes the run branch, nothing lost', async () => {
    const h = await createRunHarness(demoPolicy);
    harness = h;
    const remote = path.join(h.root, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
    await h.startWorker({ concurrency: 2 });
    await h.startWorker({ concurrency: 2 });
    const run = await startRun(h.orchestrator, {
      specPath: shortTodoSpec(h.root, 4),
      workspace: { kind: 'remote', url: remote, branch: 'main' },
      config: h.config({ lanes: 2 }),
      dataDir: h.dataDir,
    });
    const done = await waitFor(
      'the remote run to end',
      async () => {
        const current = await h.orchestrator.store.getRun(run.id);
        return ['done', 'incomplete', 'failed', 'paused', 'cancelled'].includes(current.status)
          ? current
          : undefined;
      },
      420_000,
    );
    expect(done.status, done.detail ?? '').toBe('done');
    expect(done.features).toMatchObject({ total: 4, passing: 4 });
    const lanes = git(remote, 'branch', '--list', `nightshift/${run.id}/*`).split('\n').filter(Boolean);
    expect(lanes.length).toBeGreaterThanOrEqual(3);
    // Every lane branch is merged into the run branch on the remote, with a merge commit naming its feature.
    for (const lane of lanes.map((line) => line.trim())) {
      expect(() => git(remote, 'merge-base', '--is-ancestor', lane, 'main'), lane).not.toThrow();
    }
    const merges = git(remote, 'log', '--merges', '--format=%s', 'main');
    for (const id of ['F-001', 'F-002', 'F-003', 'F-004'])
      expect(merges).toContain(`nightshift(merge): ${id} from lane`);
    const list = JSON.parse(git(remote, 'show', 'main:feature_list.json')) as Array<{ passes: boolean }>;
    expect(list.map((feature) => feature.passes)).toEqual([true, true, true, true]);
  }, 480_000);

  it('a cancel stops every lane at its next turn and queues nothing more', async () => {
    const h = await createRunHarness(demoPolicy);
    harness = h;
    await h.startWorker({ concurrency: 3 });
    const run = await startRun(h.orchestrator, {
      specPath: shortTodoSpec(h.root, 4),
      workspace: { kind: 'local', dir: path.join(h.root, 'todo') },
      config: h.config({ lanes: 2 }),
      dataDir: h.dataDir,
    });
    const listSessions = async () =>
      (await h.orchestrator.store.listSessions(run.id, { limit: 1_000 })).sessions;
    await waitFor(
      'two lane sessions in flight',
      async () => {
        const open = (await listSessions()).filter((session) => session.lane !== null && !session.finishedAt);
        return open.length >= 2 ? open : undefined;
      },
      300_000,
    );
    await cancelRun(h.orchestrator, run.id);
    const cancelledAt = Date.now();
    const sessions = await waitFor(
      'every session to end',
      async () => {
        const all = await listSessions();
        return all.every((session) => session.finishedAt) ? all : undefined;
      },
      60_000,
    );
    expect((await h.orchestrator.store.getRun(run.id)).status).toBe('cancelled');
    const stopped = sessions.filter((session) => Date.parse(session.finishedAt as string) >= cancelledAt);
    expect(stopped.length).toBeGreaterThanOrEqual(2);
    for (const session of stopped)
      expect(session.reason ?? '', `session ${session.seq}`).toMatch(/cancelled/);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const after = await listSessions();
    expect(after.filter((session) => Date.parse(session.startedAt) > cancelledAt)).toEqual([]);
  }, 480_000);
});
