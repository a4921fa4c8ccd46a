import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckFile } from '../../../checks/store.js';
import type { ReplayTally } from '../../../evaluation/replay-tally.js';
import { checkpoint, openRepo, runGit } from '../../../handoff/git.js';
import { MAIN_SLOT, nextLaneActions } from '../../../orchestrator/lanes/lane-scheduler.js';
import { claimSlot, recordMergeResults } from '../../../orchestrator/lanes/lane-store.js';
import { casUpdateRun } from '../../../orchestrator/run/run-cas.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { featureListJson } from '../../../testkit/policies/todo-features.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { mergeLanes } from '../../../workers/merge-train.js';
import { assembleDemoApp } from '../checks/demo-app.js';
import { makeWorkspace, removeWorkspace, runSession } from '../roles/role-helpers.js';
import { createRunHarness, type RunHarness } from '../runs/harness.js';

// The merge queue on the real parts: git, the demo app started fresh, Chromium replaying recorded checks, Redis.
describe('merge queue: the merged head is checked by replaying recorded checks before a feature counts', () => {
  let server: ModelServer;
  let browser: BrowserPool;
  let harness: RunHarness;
  let workspace: string;
  let dataDir: string;

  beforeAll(async () => {
    server = await startModelServer({ policy: demoPolicy });
    browser = createBrowserPool();
    harness = await createRunHarness(demoPolicy);
    const built = await assembleDemoApp();
    const files: Record<string, string> = {};
    for (const entry of await readdir(built, { recursive: true, withFileTypes: true })) {
      if (entry.isFile())
        files[path.relative(built, path.join(entry.parentPath, entry.name))] = await readFile(
          path.join(entry.parentPath, entry.name),
          'utf8',
        );
    }
    const list = (JSON.parse(featureListJson(3)) as Array<Record<string, unknown>>).map((feature, index) => ({
      id: `F-00${index + 1}`,
      ...feature,
    }));
    files['feature_list.json'] = `${JSON.stringify(list, null, 2)}\n`;
    files['.gitignore'] = 'data/\n';
    ({ workspace, dataDir } = await makeWorkspace(files));
    // F-001 passes with a recorded check on the run branch, as an evaluator session leaves it.
    const evaluated = await runSession(server, {
      role: 'evaluator',
      workspace,
      dataDir,
      featureIds: ['F-001'],
      browser,
      limits: { maxSteps: 40, maxMinutes: 4 },
    });
    expect(evaluated.verdicts[0]?.verdict).toBe('pass');
    expect(await readCheckFile(workspace, 'F-001')).not.toBeNull();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await harness?.close();
    if (workspace) removeWorkspace(workspace);
  });

  /**
   * A run in the store whose lanes hold `changes`' features (lane 1 the first…), each passed on its branch (made from
   * main plus its change) and waiting for the merge queue, which has claimed them all as job 5.
   */
  async function lanesReadyToMerge(id: string, changes: Record<string, (dir: string) => Promise<void>>) {
    const { store } = harness.orchestrator;
    await store.createRun({
      id,
      spec: { path: '/spec.md', name: 'spec.md' },
      workspace: { kind: 'local', path: workspace },
      config: harness.config({ lanes: 3 }),
    });
    await store.replaceFeatures(
      id,
      JSON.parse(await readFile(path.join(workspace, 'feature_list.json'), 'utf8')),
    );
    await store.updateFeature(id, 'F-001', { passes: true });
    await store.setStatus(id, 'building');
    const repo = openRepo(workspace);
    const ids = Object.keys(changes);
    for (const [index, featureId] of ids.entries()) {
      const slot = index + 1;
      await claimSlot(
        store,
        id,
        { slot, seq: 4, action: { kind: 'generate', featureId }, assign: true },
        new Date(),
      );
      const lane = (await store.getRun(id)).lanes.find((candidate) => candidate.lane === slot)!;
      await runGit(repo, ['branch', '-f', lane.branch, 'HEAD']);
      await runGit(repo, ['checkout', '-q', lane.branch]);
      await changes[featureId]!(workspace);
      await checkpoint(repo, { role: 'generator', runId: id, session: 4, featureId, summary: 'lane work' });
      await runGit(repo, ['checkout', '-q', '-']);
    }
    await casUpdateRun(
      harness.orchestrator.redis,
      store.keys(id),
      id,
      { features: true },
      (current, features) => ({
        run: current,
        features: features
          .filter((f) => ids.includes(f.id))
          .map((f) => ({ ...f, mergePending: true, lastVerdict: 'pass' as const })),
      }),
    );
    const plan = nextLaneActions(await store.loadState(id), new Date(), new Set());
    const action = {
      kind: 'merge' as const,
      lanes: ids.map((featureId, index) => ({ lane: index + 1, featureId })),
    };
    expect(plan).toEqual({ kind: 'work', actions: [{ slot: MAIN_SLOT, action }] });
    await claimSlot(store, id, { slot: MAIN_SLOT, seq: 5, action }, new Date());
    const run = await store.getRun(id);
    return { state: await store.loadState(id), lanes: [...run.lanes].sort((a, b) => a.lane - b.lane) };
  }

  /** The lane's change that drops the new-todo form's registration: F-001 breaks. */
  const breakAdding = async (dir: string) => {
    const file = path.join(dir, 'public/features.js');
    await writeFile(file, (await readFile(file, 'utf8')).replace("import './features/add-todo.js';\n", ''));
  };
  const harmless = (name: string) => async (dir: string) => writeFile(path.join(dir, name), `${name}\n`);

  const context = () => ({ dataDir, workerId: 'w-test', browser });
  const head = async (ref = 'HEAD') => (await runGit(openRepo(workspace), ['rev-parse', ref])).trim();

  it('a lane that breaks a passing feature is merged, found red on the merged head, undone, and sent back', async () => {
    const before = await head();
    const { state, lanes } = await lanesReadyToMerge('r-broken', { 'F-002': breakAdding });
    const lane = lanes[0]!;
    const [result] = await mergeLanes(context(), state, lanes, 5);
    if (!result) throw new Error('no merge result');
    expect(result.outcome).toBe('rejected');
    expect(result.detail).toMatch(/^F-001: recorded check v1 failed at /);
    expect(await head()).toBe(before);
    // The lane got the run branch merged in and the red check in its feedback, for its next generator.
    const feedback = await runGit(openRepo(workspace), [
      'show',
      `${lane.branch}:.nightshift/feedback/F-002.md`,
    ]);
    expect(feedback).toContain('the merge broke recorded checks');
    expect(feedback).toContain('F-001: recorded check v1 failed');

    const run = await recordMergeResults(harness.orchestrator.store, 'r-broken', 5, [result], new Date());
    const f2 = (await harness.orchestrator.store.listFeatures('r-broken')).find((f) => f.id === 'F-002')!;
    expect(f2).toMatchObject({ passes: false, mergePending: false, attempts: 1 });
    expect(run.lanes[0]?.last).toMatchObject({ role: 'merge', outcome: 'rejected' });
    const next = nextLaneActions(
      await harness.orchestrator.store.loadState('r-broken'),
      new Date(),
      new Set(),
    );
    expect(next).toEqual({
      kind: 'work',
      actions: expect.arrayContaining([{ slot: 1, action: { kind: 'generate', featureId: 'F-002' } }]),
    });
  }, 180_000);

  it('a lane that keeps the passing features green is merged and its feature passes on the run branch', async () => {
    const before = await head();
    const { state, lanes } = await lanesReadyToMerge('r-good', { 'F-002': harmless('NOTES.md') });
    const lane = lanes[0]!;
    const [result] = await mergeLanes(context(), state, lanes, 5);
    if (!result) throw new Error('no merge result');
    expect(result).toMatchObject({ outcome: 'merged', checked: ['F-001'] });
    expect(await head()).toBe(result.head);
    expect(
      (await runGit(openRepo(workspace), ['rev-list', '--parents', '-n', '1', 'HEAD'])).trim().split(' '),
    ).toEqual([result.head, before, await head(lane.branch)]);
    const run = await recordMergeResults(harness.orchestrator.store, 'r-good', 5, [result], new Date());
    expect(run.lanes).toEqual([]);
    const features = await harness.orchestrator.store.listFeatures('r-good');
    expect(features.find((f) => f.id === 'F-002')).toMatchObject({
      passes: true,
      mergePending: false,
      lastCheckedSeq: 5,
    });
    expect(features.find((f) => f.id === 'F-001')).toMatchObject({ lastCheckedSeq: 5 });
  }, 180_000);

  it('a train of two lanes where one breaks a passing feature: both undone, merged again alone, only the breaker sent back', async () => {
    const before = await head();
    const { state, lanes } = await lanesReadyToMerge('r-train', {
      'F-002': harmless('TRAIN.md'),
      'F-003': breakAdding,
    });
    const replays: unknown[] = [];
    const onReplayed = (runId: string, seq: number, tally: ReplayTally) => {
      replays.push([runId, seq, tally]);
    };
    const results = await mergeLanes({ ...context(), onReplayed }, state, lanes, 5);
    expect(results.map((result) => [result.featureId, result.outcome])).toEqual([
      ['F-002', 'merged'],
      ['F-003', 'rejected'],
    ]);
    // Every replay is told, also the red train's that no merge result names: the train, then each lane alone.
    const merge = (passed: string[], failed: string[]) => ['r-train', 5, { where: 'merge', passed, failed }];
    expect(replays).toEqual([merge([], ['F-001']), merge(['F-001'], []), merge([], ['F-001'])]);
    // The run branch holds the good lane's merge alone, on top of where it was.
    expect(
      (await runGit(openRepo(workspace), ['rev-list', '--parents', '-n', '1', 'HEAD'])).trim().split(' '),
    ).toEqual([results[0]?.head, before, await head(lanes[0]!.branch)]);
    expect(results[1]?.detail).toMatch(/^F-001: recorded check v1 failed at /);
    await recordMergeResults(harness.orchestrator.store, 'r-train', 5, results, new Date());
    const features = await harness.orchestrator.store.listFeatures('r-train');
    expect(features.find((f) => f.id === 'F-002')).toMatchObject({ passes: true });
    expect(features.find((f) => f.id === 'F-003')).toMatchObject({ passes: false, attempts: 1 });
    expect((await harness.orchestrator.store.getRun('r-train')).lanes.map((lane) => lane.featureId)).toEqual([
      'F-003',
    ]);
  }, 240_000);

  it('two lanes that append to one shared file both merge in one train: resolved by rule, replayed green, no model', async () => {
    const appendLine = (featureId: string) => async (dir: string) => {
      const file = path.join(dir, 'public/features.js');
      await writeFile(file, `${await readFile(file, 'utf8')}// ${featureId} was here\n`);
    };
    const requests = server.requests.length;
    const { state, lanes } = await lanesReadyToMerge('r-shared', {
      'F-002': appendLine('F-002'),
      'F-003': appendLine('F-003'),
    });
    const results = await mergeLanes(context(), state, lanes, 5);
    expect(results.map((result) => [result.featureId, result.outcome, result.resolved])).toEqual([
      ['F-002', 'merged', []],
      ['F-003', 'merged', ['public/features.js']],
    ]);
    expect(results[1]?.checked).toContain('F-001');
    const merged = await runGit(openRepo(workspace), ['show', 'HEAD:public/features.js']);
    expect(merged.endsWith('// F-002 was here\n// F-003 was here\n')).toBe(true);
    // No generator and no evaluator: the scripted model got no request.
    expect(server.requests.length).toBe(requests);
    await recordMergeResults(harness.orchestrator.store, 'r-shared', 5, results, new Date());
    const features = await harness.orchestrator.store.listFeatures('r-shared');
    expect(features.filter((f) => ['F-002', 'F-003'].includes(f.id)).map((f) => f.passes)).toEqual([
      true,
      true,
    ]);
    expect((await harness.orchestrator.store.getRun('r-shared')).lanes).toEqual([]);
  }, 240_000);
});
