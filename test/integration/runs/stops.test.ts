import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRepo, runGit } from '../../../handoff/git.js';
import { cancelRun, pauseRun, resumeRun } from '../../../orchestrator/controls.js';
import type { RunEvent } from '../../../orchestrator/events.js';
import type { RunRecord, SessionRecord } from '../../../orchestrator/run/index.js';
import { startRun } from '../../../orchestrator/start-run.js';
import demoPolicy, { roleOf } from '../../../testkit/policies/demo.js';
import type { Policy, ScriptedConversation } from '../../../testkit/types.js';
import { reconcile } from '../../../workers/control-processor.js';
import { readRateLimit } from '../../../workers/rate-limit.js';
import { createRunHarness, type RunHarness, waitFor } from './harness.js';

// Stop conditions and controls on real runs (in-process worker, real Redis, git and Chromium; scripted model).
let harness: RunHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function begin(
  policy: Policy,
  overrides: Parameters<RunHarness['config']>[0] = {},
): Promise<{ h: RunHarness; run: RunRecord }> {
  const h = await createRunHarness(policy);
  harness = h;
  await h.startWorker();
  // The reconciler is driven by hand here (a tick every 30 s would race the assertions).
  await h.orchestrator.queues.control.removeJobScheduler('reconcile');
  const run = await startRun(h.orchestrator, {
    specPath: 'examples/todo/app_spec.md',
    workspace: { kind: 'local', dir: path.join(h.root, 'todo') },
    config: h.config(overrides),
    dataDir: h.dataDir,
  });
  return { h, run };
}

const getRun = (h: RunHarness, id: string) => h.orchestrator.store.getRun(id);

/** Waits until the run is no longer active (paused, done, failed, cancelled). */
function untilStopped(h: RunHarness, id: string, timeoutMs = 180_000): Promise<RunRecord> {
  return waitFor(
    `run ${id} to stop`,
    async () => {
      const run = await getRun(h, id);
      return ['paused', 'done', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
    },
    timeoutMs,
  );
}

async function eventsOf(h: RunHarness, id: string): Promise<RunEvent[]> {
  return (await h.orchestrator.store.readEvents(id, { count: 100_000 })).map((stored) => stored.event);
}

async function session(h: RunHarness, id: string, seq: number): Promise<SessionRecord> {
  const record = await h.orchestrator.store.getSession(id, seq);
  if (!record) throw new Error(`no session ${seq}`);
  return record;
}

/** The text of a conversation's first message (the harness's brief). */
function briefOf(conversation: ScriptedConversation): string {
  const first = conversation.messages[0];
  return (first?.content ?? []).map((block) => ('text' in block ? block.text : '')).join('\n');
}

describe('stop conditions', () => {
  it('a tiny cost budget ends the session at its next turn and pauses the run `budget`', async () => {
    const { h, run } = await begin(demoPolicy, { budgets: { maxCostUsd: 0.000_1 } });
    const stopped = await untilStopped(h, run.id);
    expect(stopped.status).toBe('paused');
    expect(stopped.pausedReason).toBe('budget');
    expect(stopped.detail).toMatch(/cost \$\d+\.\d\d reached the budget/);
    const events = await eventsOf(h, run.id);
    expect(events).toContainEqual(expect.objectContaining({ type: 'budget.exceeded', reason: 'budget' }));
    // The initializer stopped after its first reply (its cost crossed the budget), and nothing was queued after it.
    const first = await session(h, run.id, 1);
    expect(first.finishedAt).not.toBeNull();
    expect(first.steps).toBeLessThanOrEqual(2);
    expect(h.server.requests.length).toBeLessThanOrEqual(2);
    expect((await getRun(h, run.id)).seq).toBe(1);
    expect(stopped.counters.costUsd).toBeGreaterThan(0.000_1);
  }, 180_000);

  it('a deadline a few seconds ahead pauses the run `deadline`; resume clears it and goes on', async () => {
    const deadline = new Date(Date.now() + 3_000).toISOString();
    const { h, run } = await begin(demoPolicy, { budgets: { deadline } });
    const stopped = await untilStopped(h, run.id);
    expect(stopped.status).toBe('paused');
    expect(stopped.pausedReason).toBe('deadline');
    expect(stopped.detail).toContain(deadline);
    const events = await eventsOf(h, run.id);
    expect(events).toContainEqual(expect.objectContaining({ type: 'budget.exceeded', reason: 'deadline' }));

    const resumed = await resumeRun(h.orchestrator, run.id);
    expect(['initializing', 'building']).toContain(resumed.status);
    const after = await getRun(h, run.id);
    expect(after.config.budgets.deadline).toBeUndefined();
    expect(after.seq).toBe(stopped.seq + 1);
    await cancelRun(h.orchestrator, run.id);
  }, 180_000);
});

describe('controls while a session runs', () => {
  it('pause, resume and cancel: the session in flight checkpoints at its next turn', async () => {
    // Pause (then cancel) from inside the model's reply that writes the feature's files: the tools still run,
    // then the session sees the status before its next request and stops with a WIP commit.
    let trigger: { featureId: string; act: () => Promise<unknown> } | undefined;
    const policy: Policy = async (conversation) => {
      const pending = trigger;
      if (
        pending &&
        roleOf(conversation) === 'generator' &&
        conversation.messages.length === 3 &&
        briefOf(conversation).includes(pending.featureId)
      ) {
        trigger = undefined;
        await pending.act();
      }
      return demoPolicy(conversation);
    };
    const { h, run } = await begin(policy);
    const repo = openRepo(path.join(h.root, 'todo'));
    trigger = { featureId: 'F-001', act: () => pauseRun(h.orchestrator, run.id) };

    const paused = await untilStopped(h, run.id);
    expect(paused).toMatchObject({ status: 'paused', pausedReason: 'user' });
    const interrupted = await waitFor('the paused session to end', async () => {
      const record = await session(h, run.id, paused.seq);
      return record.finishedAt ? record : undefined;
    });
    expect(interrupted).toMatchObject({ role: 'generator', featureIds: ['F-001'], outcome: 'checkpointed' });
    expect(interrupted.reason).toMatch(/paused/);
    expect(interrupted.commits.length).toBeGreaterThanOrEqual(1);
    expect(await subjectOf(repo, interrupted.endCommit)).toMatch(/work in progress/i);
    await sleep(2_000);
    expect((await getRun(h, run.id)).seq).toBe(paused.seq);

    // Resume: the feature is picked up again from the WIP commit, evaluated, and the run goes on to F-002.
    trigger = { featureId: 'F-002', act: () => cancelRun(h.orchestrator, run.id) };
    const resumed = await resumeRun(h.orchestrator, run.id);
    expect(resumed.status).toBe('building');
    const cancelled = await untilStopped(h, run.id, 300_000);
    expect(cancelled.status).toBe('cancelled');
    const last = await waitFor('the cancelled session to end', async () => {
      const record = await session(h, run.id, cancelled.seq);
      return record.finishedAt ? record : undefined;
    });
    expect(last).toMatchObject({ role: 'generator', featureIds: ['F-002'], outcome: 'checkpointed' });
    expect(last.reason).toMatch(/cancelled/);
    expect(await subjectOf(repo, last.endCommit)).toMatch(/work in progress/i);
    const features = await h.orchestrator.store.listFeatures(run.id);
    expect(features.find((feature) => feature.id === 'F-001')?.passes).toBe(true);
    await sleep(2_000);
    expect((await getRun(h, run.id)).seq).toBe(cancelled.seq);
    expect(await h.orchestrator.queues.sessions.getWaitingCount()).toBe(0);
  }, 420_000);
});

describe('a 429 storm', () => {
  it('pauses the run `rate-limited` and the queue instead of looping; the reconciler resumes it', async () => {
    const storm: Policy = () => ({ fault: { kind: 'rate_limit', retryAfterSeconds: 1 } });
    const { h, run } = await begin(storm);
    const paused = await waitFor('the rate-limited pause', async () => {
      const current = await getRun(h, run.id);
      return current.status === 'paused' ? current : undefined;
    });
    expect(paused.pausedReason).toBe('rate-limited');
    expect(paused.detail).toMatch(/rate limit/);
    const limit = await readRateLimit(h.orchestrator, run.id);
    expect(limit?.streak).toBe(1);
    expect(await h.orchestrator.queues.sessions.getRateLimitTtl()).toBeGreaterThan(0);
    const duringStorm = h.server.requests.length;
    await sleep(2_000);
    // Nothing more was asked while paused; the storm cost a bounded handful of requests.
    expect(h.server.requests.length).toBe(duringStorm);
    expect(duringStorm).toBeGreaterThanOrEqual(1);
    expect(duringStorm).toBeLessThanOrEqual(5);
    expect(h.server.requests.every((request) => request.status === 429)).toBe(true);
    console.log(`[429 storm] ${duringStorm} model requests before the run paused`);

    // Before the back-off has passed the reconciler leaves the run alone; afterwards it resumes it.
    const resumeAt = Date.parse(limit?.resumeAt ?? '');
    if (Date.now() < resumeAt - 1_000) {
      expect(await reconcile(h.orchestrator)).toBe(0);
      expect((await getRun(h, run.id)).status).toBe('paused');
    }
    h.server.setPolicy(demoPolicy);
    await sleep(Math.max(0, resumeAt - Date.now()) + 200);
    expect(await reconcile(h.orchestrator)).toBe(1);
    expect(['initializing', 'building']).toContain((await getRun(h, run.id)).status);
    const goesOn = await waitFor('the initializer to complete after the storm', async () => {
      const current = await getRun(h, run.id);
      if (current.status === 'paused') throw new Error(`paused again: ${current.detail}`);
      return current.features.total > 0 ? current : undefined;
    });
    expect(goesOn.features.total).toBe(8);
    expect(await readRateLimit(h.orchestrator, run.id)).toBeUndefined();
    await cancelRun(h.orchestrator, run.id);
  }, 180_000);
});

async function subjectOf(repo: ReturnType<typeof openRepo>, sha: string | null): Promise<string> {
  if (!sha) return '';
  return (await runGit(repo, ['log', '-1', '--format=%s', sha])).trim();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
