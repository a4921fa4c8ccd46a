import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckFile } from '../../../checks/store.js';
import type { ReplayTally } from '../../../evaluation/replay-tally.js';
import { feedbackPath } from '../../../handoff/feedback.js';
import { checkpoint, openRepo, runGit } from '../../../handoff/git.js';
import { recordFullSweep } from '../../../orchestrator/lanes/sweep-store.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { featureListJson } from '../../../testkit/policies/todo-features.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { type BrowserPool, createBrowserPool } from '../../../workers/browser-pool.js';
import { fullSweep } from '../../../workers/full-sweep.js';
import { assembleDemoApp } from '../checks/demo-app.js';
import { makeWorkspace, removeWorkspace, runSession } from '../roles/role-helpers.js';
import { createRunHarness, type RunHarness } from '../runs/harness.js';

// The scheduled full sweep on the real parts: git merge commits of the queue, the demo app, Chromium, Redis.
describe('full sweep: a red check is bisected to the queue merge that broke it and that feature is sent back', () => {
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
      const file = path.join(entry.parentPath, entry.name);
      if (entry.isFile()) files[path.relative(built, file)] = await readFile(file, 'utf8');
    }
    const list = (JSON.parse(featureListJson(3)) as Array<Record<string, unknown>>).map((feature, index) => ({
      id: `F-00${index + 1}`,
      ...feature,
    }));
    files['feature_list.json'] = `${JSON.stringify(list, null, 2)}\n`;
    files['.gitignore'] = 'data/\n';
    ({ workspace, dataDir } = await makeWorkspace(files));
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

  /** A lane branch with `change`, merged into the run branch as the merge queue does (`--no-ff`, its subject). */
  async function queueMerge(featureId: string, lane: number, change: (dir: string) => Promise<void>) {
    const repo = openRepo(workspace);
    const branch = `lane-${lane}`;
    await runGit(repo, ['checkout', '-q', '-b', branch]);
    await change(workspace);
    await checkpoint(repo, {
      role: 'generator',
      runId: 'r-sweep',
      session: 4,
      featureId,
      summary: 'lane work',
    });
    await runGit(repo, ['checkout', '-q', '-']);
    await runGit(repo, [
      'merge',
      '--no-ff',
      '-m',
      `nightshift(merge): ${featureId} from lane ${lane}`,
      branch,
    ]);
  }

  it('finds F-001 red, blames the merge of F-003 (not F-002), commits its feedback and sends it back', async () => {
    const { store } = harness.orchestrator;
    await store.createRun({
      id: 'r-sweep',
      spec: { path: '/spec.md', name: 'spec.md' },
      workspace: { kind: 'local', path: workspace },
      config: harness.config({ lanes: 2 }),
    });
    await store.replaceFeatures(
      'r-sweep',
      JSON.parse(await readFile(path.join(workspace, 'feature_list.json'), 'utf8')),
    );
    for (const id of ['F-001', 'F-002', 'F-003']) await store.updateFeature('r-sweep', id, { passes: true });
    await store.setStatus('r-sweep', 'building');
    await queueMerge('F-002', 1, (dir) => writeFile(path.join(dir, 'NOTES.md'), 'notes\n'));
    // F-003's lane drops the new-todo form's registration: F-001 (adding a todo) breaks.
    await queueMerge('F-003', 2, async (dir) => {
      const file = path.join(dir, 'public/features.js');
      await writeFile(file, (await readFile(file, 'utf8')).replace("import './features/add-todo.js';\n", ''));
    });

    const replays: Array<[string, number, ReplayTally]> = [];
    const onReplayed = (runId: string, seq: number, tally: ReplayTally) => {
      replays.push([runId, seq, tally]);
    };
    const context = { dataDir, workerId: 'w-test', browser, onReplayed };
    const swept = await fullSweep(context, await store.loadState('r-sweep'), 7);
    expect(swept.sentBack).toEqual([
      {
        featureId: 'F-003',
        victim: 'F-001',
        failure: expect.stringMatching(/^recorded check v1 failed at /),
      },
    ]);
    const feedback = await readFile(path.join(workspace, feedbackPath('F-003')), 'utf8');
    expect(feedback).toContain('F-001: recorded check v1 failed at');
    expect((await runGit(openRepo(workspace), ['rev-parse', 'HEAD'])).trim()).toBe(swept.head);
    // Every replay is told: the sweep's, then each bisect probe's (F-001 replayed on a merge commit).
    expect(replays[0]).toEqual(['r-sweep', 7, { where: 'full_sweep', passed: [], failed: ['F-001'] }]);
    expect(replays.length).toBeGreaterThan(1);
    for (const [runId, seq, tally] of replays.slice(1)) {
      expect([runId, seq, tally.where]).toEqual(['r-sweep', 7, 'full_sweep']);
      expect([...tally.passed, ...tally.failed]).toEqual(['F-001']);
    }

    await recordFullSweep(store, 'r-sweep', 7, { ...swept, durationMs: 4_321 }, new Date());
    const features = await store.listFeatures('r-sweep');
    expect(features.find((f) => f.id === 'F-003')).toMatchObject({
      passes: false,
      attempts: 1,
      replayOnMerge: ['F-001'],
    });
    expect(features.find((f) => f.id === 'F-001')).toMatchObject({ passes: true });
    expect((await store.getRun('r-sweep')).counters.fullSweep).toMatchObject({
      mergesSince: 0,
      greenHead: null,
      // How long it took spaces the next sweep (mergeChecks.fullSweepMaxShare).
      durationMs: 4_321,
    });
  }, 300_000);
});
