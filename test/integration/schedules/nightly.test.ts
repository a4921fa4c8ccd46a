import { type Job, Worker } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { advanceRun } from '../../../orchestrator/advance.js';
import { shouldCheckpointNow } from '../../../orchestrator/budgets.js';
import { pauseRun } from '../../../orchestrator/controls.js';
import type { RunEvent } from '../../../orchestrator/events.js';
import { readWindow } from '../../../orchestrator/nightly.js';
import { createStatusListener, type Notifier } from '../../../orchestrator/notifications.js';
import { bullPrefix, SESSION_QUEUE, SessionJobData } from '../../../orchestrator/queues.js';
import { handleScheduledStart } from '../../../orchestrator/schedules.js';
import { SlackPayload, WebhookPayload } from '../../../orchestrator/webhook-format.js';
import type { SessionResult } from '../../../roles/session-result.js';
import { feature, result, verdict } from '../../unit/orchestrator/fixtures.js';
import { connect, deleteKeys, newRun, uniquePrefix } from '../orchestrator/redis-helpers.js';
import {
  bullConnection,
  openOrchestrator,
  type Receiver,
  startReceiver,
  type TestOrchestrator,
  waitFor,
} from './helpers.js';

const prefix = uniquePrefix();
let test: TestOrchestrator;
let notifier: Notifier;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  test = openOrchestrator(prefix);
  notifier = createStatusListener({
    orchestrator: test.orchestrator,
    retry: { attempts: 3, baseDelayMs: 20 },
  });
  test.orchestrator.onStatusChange = notifier;
});

afterAll(async () => {
  await notifier.flush();
  await test.close();
  await receiver.close();
  const redis = connect();
  await deleteKeys(redis, prefix);
  expect(await redis.keys(`${prefix}*`)).toEqual([]);
  redis.disconnect();
});

type Step = (data: SessionJobData) => SessionResult | Promise<SessionResult>;

/** A real session worker whose sessions are scripted results, advancing the run after each as the worker does. */
function startScriptedSessions(script: Step[]): Worker {
  const { orchestrator } = test;
  return new Worker(
    SESSION_QUEUE,
    async (job: Job) => {
      const data = SessionJobData.parse(job.data);
      const step = script.shift();
      if (!step) throw new Error(`no scripted result for session ${data.seq} (${data.action.kind})`);
      const outcome = await orchestrator.store.recordSessionResult(data.runId, data.seq, await step(data));
      notifier.notifyEvents(outcome.run, outcome.events);
      await advanceRun(orchestrator, data.runId, { finishedJobId: job.id });
    },
    { connection: bullConnection(), prefix: bullPrefix(prefix) },
  );
}

const evaluation = (
  seq: number,
  verdicts: Array<[id: string, value: 'pass' | 'fail' | 'blocked', mode?: 'evaluate' | 'regression']>,
  costUsd: number,
): SessionResult =>
  result(
    'evaluator',
    verdicts.map(([id]) => id),
    { costUsd, verdicts: verdicts.map(([id, value, mode]) => verdict(id, value, seq, mode)) },
  );

async function summaries(runId: string) {
  const events = await test.orchestrator.store.readEvents(runId, { count: 500 });
  return events.flatMap(({ event }) => (event.type === 'nightly.summary' ? [event] : []));
}

function payloads(path: string) {
  return receiver.received.filter((request) => request.path === path).map((request) => request.body);
}

it('scheduled windows end with a nightly summary, and webhooks report pauses, regressions, summaries and the finish', async () => {
  const { orchestrator } = test;
  const { store } = orchestrator;
  const run = await store.createRun(
    newRun({
      budgets: { maxBlockedEvaluations: 1 },
      notifications: {
        webhooks: [
          { url: `${receiver.url}/json/T0KEN`, format: 'json' },
          { url: `${receiver.url}/slack/services/T000/B000/XXXX`, format: 'slack' },
        ],
      },
    }),
  );
  await store.replaceFeatures(run.id, [feature(1), feature(2), feature(3), feature(4)]);
  await store.setStatus(run.id, 'building');
  for (const id of ['F-001', 'F-002']) {
    const seq = await store.nextSeq(run.id);
    await store.recordSessionResult(run.id, seq, evaluation(seq, [[id, 'pass']], 0.5));
  }
  await pauseRun(orchestrator, run.id, 'paused for the night');

  // Window 1: $1 to spend. One evaluation (F-003 passes, F-001 regresses, F-004 cannot be checked → blocked),
  // then a generator session takes the window's cost over its cap: the run pauses `budget`, the window closes.
  const sessions = startScriptedSessions([
    ({ seq }) =>
      evaluation(
        seq,
        [
          ['F-003', 'pass'],
          ['F-001', 'fail', 'regression'],
          ['F-004', 'blocked'],
        ],
        0.6,
      ),
    () => result('generator', ['F-001'], { outcome: 'checkpointed', costUsd: 0.6 }),
    // Window 2: F-001 is fixed, the final sweep re-checks the others, the run finishes.
    ({ seq }) => evaluation(seq, [['F-001', 'pass']], 0.1),
    ({ seq, action }) =>
      evaluation(
        seq,
        (action.kind === 'regress' ? action.featureIds : []).map((id) => [id, 'pass', 'regression'] as const),
        0.1,
      ),
  ]);
  try {
    const first = await handleScheduledStart(orchestrator, {
      kind: 'scheduled-start',
      runId: run.id,
      forMs: 3_600_000,
      budgetUsd: 1,
    });
    expect(first).toMatchObject({
      kind: 'started',
      status: 'building',
      window: { passing: ['F-001', 'F-002'] },
    });
    const paused = await waitFor('the window budget to pause the run', async () => {
      const current = await store.getRun(run.id);
      return current.status === 'paused' && current.pausedReason === 'budget' ? current : undefined;
    });
    expect(paused.config.budgets.maxCostUsd).toBe(2);
    // The status listener closes the window right after the status change.
    const [summary1] = await waitFor('the first summary', async () => {
      const found = await summaries(run.id);
      return found.length === 1 ? found : undefined;
    });
    expect(await readWindow(orchestrator, run.id)).toBeUndefined();
    expect(summary1).toMatchObject({
      type: 'nightly.summary',
      since: first.kind === 'started' ? first.window.startedAt : '',
      newlyPassing: ['F-003'],
      newlyFailing: ['F-001'],
      blocked: ['F-004'],
      passing: 2,
      total: 4,
    });
    expect(summary1?.costUsd).toBeCloseTo(1.2, 6);

    await handleScheduledStart(orchestrator, {
      kind: 'scheduled-start',
      runId: run.id,
      forMs: 3_600_000,
      budgetUsd: 5,
    });
    // F-004 is blocked: the run ends `incomplete`, not `done`.
    await waitFor('the run to finish', async () =>
      (await store.getRun(run.id)).status === 'incomplete' ? true : undefined,
    );
    const all = await waitFor('the second summary', async () => {
      const found = await summaries(run.id);
      return found.length === 2 ? found : undefined;
    });
    expect(all[1]).toMatchObject({
      newlyPassing: ['F-001'],
      newlyFailing: [],
      blocked: ['F-004'],
      passing: 3,
      total: 4,
    });
    expect(all[1]?.costUsd).toBeCloseTo(0.2, 6);
  } finally {
    await sessions.close();
  }
  await notifier.flush();

  const json = payloads('/json/T0KEN').map((body) => WebhookPayload.parse(body));
  const ofType = (type: string) => json.filter((payload) => payload.type === type);
  expect(ofType('run.paused').map((payload) => [payload.reason, payload.detail])).toEqual(
    expect.arrayContaining([
      ['user', 'paused for the night'],
      ['budget', expect.stringContaining('reached the budget of $2.00')],
    ]),
  );
  expect(ofType('feature.regressed')).toMatchObject([
    { runId: run.id, regressions: [{ featureId: 'F-001', issues: ['button does nothing'] }] },
  ]);
  expect(ofType('nightly.summary').map((payload) => payload.summary?.newlyPassing)).toEqual(
    expect.arrayContaining([['F-003'], ['F-001']]),
  );
  expect(ofType('run.finished')).toMatchObject([
    {
      runId: run.id,
      spec: 'todo.md',
      status: 'incomplete',
      detail: expect.stringMatching(/^1 feature\(s\) blocked: F-004 \(/),
      features: { total: 4, passing: 3, blocked: 1 },
    },
  ]);

  const texts = payloads('/slack/services/T000/B000/XXXX').map((body) => SlackPayload.parse(body).text);
  const slack = (pattern: RegExp) => texts.filter((text) => pattern.test(text));
  expect(slack(/paused \(user\): paused for the night/)).toHaveLength(1);
  expect(slack(/paused \(budget\): cost \$2\.20 reached the budget of \$2\.00/)).toHaveLength(1);
  expect(
    slack(/regression — 1 feature that passed before now fails: F-001 \(button does nothing\)/),
  ).toHaveLength(1);
  expect(
    slack(
      /1 newly passing \(F-003\), 1 newly failing \(F-001\), 1 blocked \(F-004: .+\); 2\/4 features passing; \$1\.20 spent/,
    ),
  ).toHaveLength(1);
  expect(
    slack(/finished \(incomplete\): 1 feature\(s\) blocked: F-004 .*\. 3\/4 features passing/),
  ).toHaveLength(1);
  expect(texts).toHaveLength(json.length);
  const events: RunEvent[] = (await store.readEvents(run.id, { count: 500 })).map((entry) => entry.event);
  expect(events.filter((event) => event.type === 'notification.failed')).toEqual([]);
});

it('a window ends at its deadline: the session in flight checkpoints, the run pauses `deadline`, the summary follows', async () => {
  const { orchestrator } = test;
  const { store } = orchestrator;
  const run = await store.createRun(
    newRun({
      notifications: { webhooks: [{ url: `${receiver.url}/deadline`, events: ['nightly.summary'] }] },
    }),
  );
  await store.replaceFeatures(run.id, [feature(1), feature(2)]);
  await store.setStatus(run.id, 'paused');
  // A long session: it works until the worker's per-turn budget check says stop, then checkpoints.
  const sessions = startScriptedSessions([
    async () => {
      await waitFor('the deadline to pass', async () => {
        const stop = shouldCheckpointNow(await store.loadState(run.id), new Date(), 0.05);
        return stop?.reason === 'deadline' ? stop : undefined;
      });
      return result('generator', ['F-001'], { outcome: 'checkpointed', costUsd: 0.05 });
    },
  ]);
  try {
    const started = await handleScheduledStart(orchestrator, {
      kind: 'scheduled-start',
      runId: run.id,
      forMs: 1_500,
    });
    expect(started).toMatchObject({ kind: 'started', status: 'building' });
    const paused = await waitFor('the deadline pause', async () => {
      const current = await store.getRun(run.id);
      return current.status === 'paused' ? current : undefined;
    });
    expect(paused).toMatchObject({ pausedReason: 'deadline', detail: expect.stringContaining('passed') });
  } finally {
    await sessions.close();
  }
  const [summary] = await waitFor('the summary', async () => {
    const found = await summaries(run.id);
    return found.length > 0 ? found : undefined;
  });
  await notifier.flush();
  expect(summary).toMatchObject({
    newlyPassing: [],
    newlyFailing: [],
    blocked: [],
    passing: 0,
    total: 2,
    costUsd: 0.05,
  });
  // This webhook asked for summaries only.
  expect(payloads('/deadline').map((body) => WebhookPayload.parse(body).type)).toEqual(['nightly.summary']);
});
