import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { RecordedCheck } from '../../../checks/format.js';
import { writeCheck } from '../../../checks/store.js';
import { checkpoint, ensureRepo } from '../../../handoff/git.js';
import { handleScheduledStart } from '../../../orchestrator/schedules.js';
import { assembleDemoApp } from '../checks/demo-app.js';
import { createRunHarness, type RunHarness, waitFor } from '../runs/harness.js';

// A nightly window starts by replaying every recorded check (a regression sweep, replay first): with every check
// green, the window asks no model at all. Real worker, Redis, git, Chromium and the demo app; the scripted model
// records any request it gets, and the test fails on one.
const TEXTBOX = "getByRole('textbox', { name: 'New todo', exact: true })";
let harness: RunHarness | undefined;
afterAll(async () => {
  await harness?.close();
});

const addTodo = (featureId: string, title: string) =>
  RecordedCheck.parse({
    featureId,
    version: 1,
    recordedAt: '2026-01-01T00:00:00.000Z',
    origin: { runId: 'r-earlier', session: 3, reason: 'evaluate' },
    actions: [
      { kind: 'goto', path: '/' },
      { kind: 'fill', target: TEXTBOX, text: title },
      { kind: 'press', key: 'Enter', target: TEXTBOX },
    ],
    expectations: [{ kind: 'text', text: title, visible: true }],
  });

it('a nightly window replays every recorded check first and, all green, makes no model request', async () => {
  const asked: number[] = [];
  const h = await createRunHarness((conversation) => {
    asked.push(conversation.requestIndex);
    return { text: 'A model was asked during a window whose checks are all green.' };
  });
  harness = h;
  // The demo app with two passing features, each with a committed recorded check.
  const workspace = await assembleDemoApp({}, path.join(h.root, 'ws'));
  const listed = JSON.parse(fs.readFileSync(path.join(workspace, 'feature_list.json'), 'utf8'));
  const features = (listed as Array<Record<string, unknown>>)
    .slice(0, 2)
    .map((feature, index) => ({ id: `F-00${index + 1}`, ...feature, passes: true }));
  fs.writeFileSync(path.join(workspace, 'feature_list.json'), `${JSON.stringify(features, null, 2)}\n`);
  fs.writeFileSync(path.join(workspace, '.gitignore'), 'data/\n');
  const repo = await ensureRepo(workspace);
  await writeCheck(workspace, addTodo('F-001', 'Buy milk'), { title: 'Add a todo', flaky: null });
  await writeCheck(workspace, addTodo('F-002', 'Walk the dog'), { title: 'Add another', flaky: null });
  await checkpoint(repo, { role: 'harness', runId: 'r-earlier', session: 3, summary: 'two checked passes' });

  const { store } = h.orchestrator;
  const run = await store.createRun({
    spec: { path: path.join(workspace, 'app_spec.md'), name: 'todo' },
    workspace: { kind: 'local', path: workspace },
    config: h.config(),
  });
  await store.setStatus(run.id, 'initializing');
  await store.replaceFeatures(run.id, features as never);
  await store.setStatus(run.id, 'building');
  await store.setStatus(run.id, 'paused', { reason: 'deadline', detail: 'the last window ended' });
  await h.startWorker();
  await h.orchestrator.queues.control.removeJobScheduler('reconcile');

  const started = await handleScheduledStart(h.orchestrator, {
    kind: 'scheduled-start',
    runId: run.id,
    forMs: 600_000,
  });
  expect(started.kind).toBe('started');
  const done = await waitFor(
    `run ${run.id} to finish`,
    async () => {
      const current = await store.getRun(run.id);
      return ['paused', 'done', 'failed', 'cancelled'].includes(current.status) ? current : undefined;
    },
    180_000,
  );
  expect(asked, 'model requests during the window').toEqual([]);
  expect(h.server.requests).toHaveLength(0);
  const sweep = await store.getSession(run.id, 1);
  expect(sweep).toMatchObject({ role: 'evaluator', kind: 'regress', featureIds: ['F-001', 'F-002'] });
  expect(sweep?.outcome).toBe('completed');
  expect(done).toMatchObject({ status: 'done', counters: { sessions: 1, costUsd: 0, regressions: 0 } });
  const verdicts = (await store.readEvents(run.id, { count: 500 }))
    .map(({ event }) => event)
    .filter((event) => event.type === 'verdict.applied');
  expect(verdicts.map((event) => [event.featureId, event.verdict, event.mode])).toEqual([
    ['F-001', 'pass', 'regression'],
    ['F-002', 'pass', 'regression'],
  ]);
}, 240_000);
