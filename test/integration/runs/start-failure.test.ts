import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bullPrefix } from '../../../orchestrator/queues.js';
import { startRun } from '../../../orchestrator/start-run.js';
import { latestRunOn, WorkspaceFinishedError } from '../../../orchestrator/workspace-claim.js';
import { agentGit } from '../handoff/helpers.js';
import { createRunHarness, type RunHarness } from './harness.js';

// Starting a run never leaves a run behind that blocks the workspace (real Redis, git and BullMQ; no worker).
let harness: RunHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SPEC = 'examples/todo/app_spec.md';

describe('starting a run', () => {
  it('a start that fails after the run was created leaves no run, and the next start works', async () => {
    const h = await createRunHarness(() => ({ text: 'unused' }));
    harness = h;
    const dir = path.join(h.root, 'todo');
    // The session queue's metadata is not a hash: queueing the first session fails inside BullMQ's script.
    const meta = `${bullPrefix(h.prefix)}:sessions:meta`;
    await h.orchestrator.redis.set(meta, 'not a hash');
    const input = {
      specPath: SPEC,
      workspace: { kind: 'local' as const, dir },
      config: h.config(),
      dataDir: h.dataDir,
    };
    await expect(startRun(h.orchestrator, input)).rejects.toThrow(/WRONGTYPE/);
    expect(await h.orchestrator.store.listRuns()).toEqual([]);

    await h.orchestrator.redis.del(meta);
    const run = await startRun(h.orchestrator, input);
    expect(run.status).toBe('initializing');
    expect((await h.orchestrator.store.listRuns()).map((candidate) => candidate.id)).toEqual([run.id]);
  });

  it('a run adopting a workspace whose features all pass ends done at once; after it, a plain start is refused', async () => {
    const h = await createRunHarness(() => ({ text: 'unused' }));
    harness = h;
    const dir = path.join(h.root, 'built');
    const list = [1, 2].map((n) => ({
      id: `F-00${n}`,
      category: 'functional',
      description: `Feature ${n}`,
      steps: ['Open the app'],
      passes: true,
    }));
    agentGit(h.root, 'init', '-q', '-b', 'main', dir);
    await writeFile(path.join(dir, 'feature_list.json'), JSON.stringify(list, null, 2));
    await writeFile(path.join(dir, 'init.sh'), '#!/bin/bash\nexec node server.js\n', { mode: 0o755 });
    await writeFile(path.join(dir, 'app_spec.md'), '# Built\n');
    agentGit(dir, 'add', '-A');
    agentGit(dir, 'commit', '-q', '-m', 'built elsewhere');
    const input = {
      specPath: SPEC,
      workspace: { kind: 'local' as const, dir },
      config: h.config(),
      dataDir: h.dataDir,
    };
    const run = await startRun(h.orchestrator, input);
    expect(run).toMatchObject({ status: 'done', features: { total: 2, passing: 2 } });

    const last = await latestRunOn(h.orchestrator, input.workspace);
    expect(last?.id).toBe(run.id);
    const refusal = new WorkspaceFinishedError(dir, last as NonNullable<typeof last>);
    expect(refusal.message).toMatch(
      new RegExp(`has a finished run: ${run.id} ended done on .*, 2/2 features passing`),
    );
    expect(refusal.hint).toContain('the same command with `--new`');

    // --new: a new run that re-checks what passes first (a regression sweep of both features is queued).
    const again = await startRun(h.orchestrator, { ...input, recheckPassing: true });
    expect(again.status).toBe('building');
    const job = await h.orchestrator.queues.sessions.getJob(`${again.id}-1`);
    expect(job?.data.action).toEqual({ kind: 'regress', featureIds: ['F-001', 'F-002'] });
  });
});
