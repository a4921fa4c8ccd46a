/**
 * Housekeeping of finished runs on real Redis, BullMQ, git and files: a run that finishes (here: cancelled through the
 * real CLI) loses its lane branches and this data dir's clones of it at once; one whose session is still in flight
 * is tidied once that session has ended; a resumable run keeps the branches its lanes hold; `nightshift prune`
 * removes old finished runs' records and evidence, says what it freed, and never touches a run that is not
 * finished, a workspace or a run branch.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cancelRun } from '../../../orchestrator/controls.js';
import {
  pendingTidyKey,
  tidyFinishedClones,
  tidyFinishedRun,
  tidyPending,
  withHousekeeping,
} from '../../../orchestrator/housekeeping.js';
import type { Orchestrator } from '../../../orchestrator/orchestrator.js';
import { PruneReport } from '../../../orchestrator/prune.js';
import { bullPrefix, openQueues, type Queues, SESSION_QUEUE } from '../../../orchestrator/queues.js';
import { FINISHED_STATUSES, RunStore } from '../../../orchestrator/run/index.js';
import { addSchedule } from '../../../orchestrator/schedules.js';
import { createBrowserPool } from '../../../workers/browser-pool.js';
import { startWorker } from '../../../workers/worker.js';
import { cliEnv, runCli, tempDir } from '../cli/helpers.js';
import { connect, deleteKeys, newRun, REDIS_URL, uniquePrefix } from './redis-helpers.js';

// Real CLI processes (node + tsx) take seconds each on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

let redis: Redis;
let store: RunStore;
let queues: Queues;
let orchestrator: Orchestrator;
let prefix: string;
let root: string;
let home: string;
let env: NodeJS.ProcessEnv;

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    encoding: 'utf8',
  }).trim();
const branches = (dir: string) =>
  git(dir, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n');

/** A workspace repository on `main` with lane branches of `runIds` (two each) and one branch of its own. */
function workspaceWithLanes(name: string, runIds: readonly string[]): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(dir, 'app_spec.md'), '# Todo app\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'spec');
  git(dir, 'branch', 'feature/mine');
  for (const runId of runIds) {
    git(dir, 'branch', `nightshift/${runId}/lane-1-F-002`);
    git(dir, 'branch', `nightshift/${runId}/lane-2-F-003`);
  }
  return dir;
}

/** A clone directory of the run in the data dir (a real clone, as a worker leaves one), an app copy, a dependency cache. */
function leftovers(runId: string, workspace: string): string[] {
  const clone = path.join(home, 'clones', 'host-1-ab12', runId, 'lane-1');
  fs.mkdirSync(path.dirname(clone), { recursive: true });
  execFileSync('git', ['clone', '-q', workspace, clone]);
  const start = path.join(home, 'clones', 'start', runId);
  fs.mkdirSync(start, { recursive: true });
  const copy = path.join(home, 'runs', runId, 'app-copies', '7-evaluate');
  fs.mkdirSync(copy, { recursive: true });
  fs.writeFileSync(path.join(copy, 'server.js'), 'x'.repeat(4096));
  const dependencyCache = path.join(home, 'runs', runId, 'app-deps');
  fs.mkdirSync(path.join(dependencyCache, 'a1b2c3', 'node_modules'), { recursive: true });
  fs.writeFileSync(path.join(dependencyCache, 'a1b2c3', 'node_modules', '.package-lock.json'), '{}\n');
  return [path.join(home, 'clones', 'host-1-ab12', runId), start, copy, dependencyCache];
}

async function createRun(id: string, workspace: string, status: 'building' | 'paused' = 'building') {
  await store.createRun({ ...newRun({ lanes: 2 }, id), workspace: { kind: 'local', path: workspace } });
  await store.setStatus(id, 'initializing');
  await store.setStatus(id, 'building');
  if (status === 'paused') await store.setStatus(id, 'paused', { reason: 'user' });
}

beforeAll(async () => {
  redis = connect();
  prefix = uniquePrefix();
  store = new RunStore(redis, { prefix });
  queues = openQueues({ url: REDIS_URL, maxRetriesPerRequest: null }, prefix);
  orchestrator = { redis, store, queues, prefix, now: () => new Date() };
  root = fs.realpathSync(tempDir('housekeeping'));
  home = path.join(root, 'home');
  env = cliEnv(home, prefix, { REDIS_URL });
});

afterAll(async () => {
  await queues.sessions.obliterate({ force: true }).catch(() => undefined);
  await queues.control.obliterate({ force: true }).catch(() => undefined);
  await queues.close();
  await deleteKeys(redis, prefix);
  await store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('a run that finishes', () => {
  it('cancelled through the CLI, loses its lane branches and clones at once; nothing else is touched', async () => {
    const workspace = workspaceWithLanes('ws-cancel', ['r-cancelled', 'r-other']);
    const head = git(workspace, 'rev-parse', 'main');
    const paths = leftovers('r-cancelled', workspace);
    const others = leftovers('r-other', workspace);
    await createRun('r-cancelled', workspace);
    await createRun('r-other', workspace);

    const out = await runCli(['cancel', 'r-cancelled'], { env, cwd: root });
    expect(out.code, out.stderr).toBe(0);
    expect(branches(workspace).sort()).toEqual(
      ['feature/mine', 'main', 'nightshift/r-other/lane-1-F-002', 'nightshift/r-other/lane-2-F-003'].sort(),
    );
    expect(git(workspace, 'rev-parse', 'main')).toBe(head);
    for (const gone of paths) expect(fs.existsSync(gone), gone).toBe(false);
    for (const kept of others) expect(fs.existsSync(kept), kept).toBe(true);
    expect(fs.existsSync(path.join(workspace, 'app_spec.md'))).toBe(true);
    expect(await redis.smembers(pendingTidyKey(prefix))).toEqual([]);
  });

  it('with a session still in flight, is tidied once the session has ended (the reconcile tick)', async () => {
    const workspace = workspaceWithLanes('ws-flight', ['r-flight']);
    const [clone] = leftovers('r-flight', workspace);
    await createRun('r-flight', workspace);
    const seq = await store.nextSeq('r-flight');
    // A session of the run held by a worker: BullMQ's `active`.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = new Worker(SESSION_QUEUE, () => held, {
      connection: { url: REDIS_URL, maxRetriesPerRequest: null },
      prefix: bullPrefix(prefix),
    });
    const job = await queues.sessions.add('session', {}, { jobId: `r-flight-${seq}` });
    await vi.waitFor(async () => expect(await job.getState()).toBe('active'), { timeout: 30_000 });

    const listener = withHousekeeping(async () => undefined, { orchestrator, dataDir: home });
    await cancelRun({ ...orchestrator, onStatusChange: listener }, 'r-flight');
    await listener.flush();
    expect(await redis.smembers(pendingTidyKey(prefix))).toEqual(['r-flight']);
    expect(fs.existsSync(clone as string)).toBe(true);
    expect(branches(workspace)).toContain('nightshift/r-flight/lane-1-F-002');

    release();
    await vi.waitFor(async () => expect(await job.getState()).toBe('completed'), { timeout: 30_000 });
    await worker.close();
    expect(await tidyPending({ orchestrator, dataDir: home })).toBe(1);
    expect(fs.existsSync(clone as string)).toBe(false);
    expect(branches(workspace).filter((branch) => branch.startsWith('nightshift/'))).toEqual([]);
    expect(await redis.smembers(pendingTidyKey(prefix))).toEqual([]);
  });

  it('on a --repo remote, loses its lane branches there; the run branch stays', async () => {
    const local = workspaceWithLanes('remote-source', ['r-remote']);
    const remote = path.join(root, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    git(
      local,
      'push',
      '-q',
      remote,
      'main',
      'nightshift/r-remote/lane-1-F-002',
      'nightshift/r-remote/lane-2-F-003',
    );
    await store.createRun({
      ...newRun({ lanes: 2 }, 'r-remote'),
      workspace: { kind: 'remote', url: remote, branch: 'main' },
    });
    const cancelled = await store.setStatus('r-remote', 'cancelled', { detail: 'cancelled by the user' });
    const { freed, problems } = await tidyFinishedRun({ orchestrator, dataDir: home }, cancelled);
    expect(problems).toEqual([]);
    expect(freed.laneBranches).toBe(2);
    expect(git(remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/')).toBe('main');
  });

  it('failed (resumable), keeps the branch of the lane it still holds', async () => {
    const workspace = workspaceWithLanes('ws-failed', ['r-failed']);
    await createRun('r-failed', workspace);
    const failed = await store.setStatus('r-failed', 'failed', { detail: 'bad key' });
    const held = {
      lane: 1,
      featureId: 'F-002',
      branch: 'nightshift/r-failed/lane-1-F-002',
      seq: 3,
      last: null,
      mergeSetbacks: 0,
    };
    const { freed, problems } = await tidyFinishedRun(
      { orchestrator, dataDir: home },
      { ...failed, lanes: [held] },
    );
    expect(problems).toEqual([]);
    expect(freed.laneBranches).toBe(1);
    expect(branches(workspace)).toContain('nightshift/r-failed/lane-1-F-002');
    expect(branches(workspace)).not.toContain('nightshift/r-failed/lane-2-F-003');
  });
});

describe("a worker's own data dir", () => {
  it('loses its clones of a finished run on its own timer, whichever worker takes the reconcile ticks', async () => {
    // A prefix of its own: these workers' reconcile ticks must not advance the other tests' runs.
    const ownPrefix = uniquePrefix();
    const own: Orchestrator = {
      redis,
      store: new RunStore(redis, { prefix: ownPrefix }),
      queues: openQueues({ url: REDIS_URL, maxRetriesPerRequest: null }, ownPrefix),
      prefix: ownPrefix,
      now: () => new Date(),
    };
    // Directories of this try's own (a retry starts clean).
    const base = fs.mkdtempSync(path.join(root, 'two-workers-'));
    const workspace = workspaceWithLanes(`${path.basename(base)}/ws`, ['r-two-workers', 'r-paused']);
    for (const id of ['r-two-workers', 'r-paused']) {
      await own.store.createRun({
        ...newRun({ lanes: 2 }, id),
        workspace: { kind: 'local', path: workspace },
      });
      await own.store.setStatus(id, 'initializing');
      await own.store.setStatus(id, 'building');
    }
    await own.store.setStatus('r-two-workers', 'done');
    await own.store.setStatus('r-paused', 'paused', { reason: 'user' });
    const dataDirs = ['worker-a', 'worker-b'].map((name) => path.join(base, name));
    const clone = (dataDir: string, runId: string) => {
      const dir = path.join(dataDir, 'clones', `${path.basename(dataDir)}-1-ab12`, runId);
      execFileSync('git', ['clone', '-q', workspace, path.join(dir, 'lane-1')]);
      return dir;
    };
    const finished = dataDirs.map((dataDir) => clone(dataDir, 'r-two-workers'));
    const kept = dataDirs.map((dataDir) => clone(dataDir, 'r-paused'));
    // No reconcile handler at all: what goes, goes by the chores' own timer in each process.
    const workers = await Promise.all(
      dataDirs.map((dataDir) =>
        startWorker({
          orchestrator: own,
          connection: { url: REDIS_URL, maxRetriesPerRequest: null },
          dataDir,
          browser: createBrowserPool(),
          createProvider: () => {
            throw new Error('no session runs in this test');
          },
          dataDirChores: (orchestrator) => tidyFinishedClones({ orchestrator, dataDir }),
          dataDirChoresEveryMs: 200,
        }),
      ),
    );
    try {
      await vi.waitFor(() => expect(finished.filter((dir) => fs.existsSync(dir))).toEqual([]), {
        timeout: 30_000,
      });
      // A few more sweeps of each worker: the paused run's clones stay, nothing is left half removed.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(kept.filter((dir) => fs.existsSync(dir))).toEqual(kept);
      for (const dataDir of dataDirs) {
        const trash = path.join(dataDir, 'housekeeping', 'removing');
        expect(fs.existsSync(trash) ? fs.readdirSync(trash) : []).toEqual([]);
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await own.queues.control.obliterate({ force: true }).catch(() => undefined);
      await own.queues.close();
      await deleteKeys(redis, ownPrefix);
    }
  });
});

describe('nightshift prune', () => {
  it('removes old finished runs with their evidence, says what it freed, and keeps the rest', async () => {
    const workspace = workspaceWithLanes('ws-prune', ['r-old', 'r-live', 'r-planned']);
    leftovers('r-old', workspace);
    const evidence = path.join(home, 'runs', 'r-old', 'evidence', '4');
    fs.mkdirSync(evidence, { recursive: true });
    fs.writeFileSync(path.join(evidence, 'step-1.png'), Buffer.alloc(10_000));
    const liveClone = leftovers('r-live', workspace)[0] as string;
    await createRun('r-old', workspace);
    await createRun('r-live', workspace, 'paused');
    await createRun('r-planned', workspace);
    await store.setStatus('r-old', 'cancelled', { detail: 'cancelled by the user' });
    await store.setStatus('r-planned', 'failed', { detail: 'bad key' });
    // A scheduled run keeps its records: someone means to go on with it.
    await addSchedule(orchestrator, { runId: 'r-planned', cron: '0 1 * * *', tz: 'UTC' });
    await new Promise((resolve) => setTimeout(resolve, 20));

    const dry = await runCli(['prune', '--older-than', '10ms', '--dry-run', '--json'], { env, cwd: root });
    expect(dry.code, dry.stderr).toBe(0);
    const preview = PruneReport.parse(JSON.parse(dry.stdout));
    // r-live, and the unfinished runs of the tests before (they share the prefix).
    const unfinished = (await store.listRuns()).filter((run) => !FINISHED_STATUSES.includes(run.status));
    expect(preview).toMatchObject({ dryRun: true, notFinished: unfinished.length });
    const old = preview.runs.find((run) => run.id === 'r-old');
    expect(old).toMatchObject({ removed: 'everything', status: 'cancelled', name: 'todo' });
    expect(old?.freed).toMatchObject({ runs: 1, clones: 2, laneBranches: 2, appCopies: 1 });
    expect(old?.freed.bytes).toBeGreaterThan(14_000);
    expect(preview.problems).toContain(
      'r-planned: records kept, it has a schedule (`nightshift schedule remove r-planned` first)',
    );
    // A dry run removes nothing.
    expect(branches(workspace)).toContain('nightshift/r-old/lane-1-F-002');
    expect(fs.existsSync(evidence)).toBe(true);

    const text = await runCli(['prune', '--older-than', '10ms'], { env, cwd: root });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^r-old {2}todo {2}cancelled, finished .*: removed 1 run record and its data, 2 worker clones, 2 lane branches, 1 app copy \(\d+\.\d KB\)$/m,
    );
    expect(text.stdout).toMatch(/^Left alone: \d+ runs? that (is|are) not finished\.$/m);
    expect(fs.existsSync(path.join(home, 'runs', 'r-old'))).toBe(false);
    expect(await redis.keys(`${prefix}run:{r-old}*`)).toEqual([]);
    const left = (await store.listRuns()).map((run) => run.id);
    expect(left).toEqual(expect.arrayContaining(['r-live', 'r-planned', ...unfinished.map((run) => run.id)]));
    expect(left).not.toContain('r-old');
    // Not finished: untouched. Scheduled: tidied, records kept. The workspace and its own branches: untouched.
    expect(fs.existsSync(liveClone)).toBe(true);
    expect(branches(workspace).sort()).toEqual(
      ['feature/mine', 'main', 'nightshift/r-live/lane-1-F-002', 'nightshift/r-live/lane-2-F-003'].sort(),
    );
    expect(fs.existsSync(path.join(workspace, '.git'))).toBe(true);

    const again = await runCli(['prune', '--json'], { env, cwd: root });
    expect(PruneReport.parse(JSON.parse(again.stdout)).freed).toEqual({
      runs: 0,
      clones: 0,
      laneBranches: 0,
      appCopies: 0,
      bytes: 0,
    });
  });
});
