import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { openRepo, runGit } from '../../../handoff/git.js';
import { readVerdicts } from '../../../handoff/verdicts.js';
import { startRun } from '../../../orchestrator/start-run.js';
import demoPolicy from '../../../testkit/policies/demo.js';
import { createRunHarness, type RunHarness, waitFor } from './harness.js';

let harness: RunHarness;
beforeAll(async () => {
  harness = await createRunHarness(demoPolicy);
});
afterAll(() => harness.close());

describe('a whole run driven only by queue jobs', () => {
  it('builds the todo example from spec to done, with the planted bug caught and fixed', async () => {
    await harness.startWorker();
    const workspace = path.join(harness.root, 'todo');
    const run = await startRun(harness.orchestrator, {
      specPath: 'examples/todo/app_spec.md',
      workspace: { kind: 'local', dir: workspace },
      config: harness.config(),
      dataDir: harness.dataDir,
    });
    const done = await waitFor(
      'the run to end',
      async () => {
        const current = await harness.orchestrator.store.getRun(run.id);
        return ['done', 'failed', 'paused', 'cancelled'].includes(current.status) ? current : undefined;
      },
      600_000,
    );
    expect(done.status, `${done.status} ${done.pausedReason ?? ''} ${done.detail ?? ''}`).toBe('done');
    expect(done.features).toMatchObject({ total: 8, passing: 8, blocked: 0 });

    const list = await readFeatureList(workspace);
    expect(list.every((feature) => feature.passes)).toBe(true);
    const { records } = await readVerdicts(workspace);
    const buggy = records.filter((record) => record.mode === 'evaluate' && record.verdict === 'fail');
    expect(buggy.length).toBeGreaterThanOrEqual(1);
    const buggyId = buggy[0]?.featureId;
    expect(records.some((record) => record.featureId === buggyId && record.verdict === 'pass')).toBe(true);

    const log = await runGit(openRepo(workspace), ['log', '--format=%an|%s']);
    expect(log).toMatch(/nightshift agent\|F-00\d/);
    expect(log).toMatch(/nightshift\|nightshift\(harness\): .*verdict/);
    const sessions = await harness.orchestrator.store.listSessions(run.id, { offset: 0, limit: 200 });
    const roles = new Set(sessions.sessions.map((session) => session.role));
    expect([...roles].sort()).toEqual(['evaluator', 'generator', 'initializer']);
    expect(fs.existsSync(path.join(workspace, 'init.sh'))).toBe(true);
  }, 900_000);
});
