import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerScheduleCommand } from '../../../cli/schedule.js';
import { pauseRun } from '../../../orchestrator/controls.js';
import { readWindow } from '../../../orchestrator/nightly.js';
import { RunNotFoundError } from '../../../orchestrator/run/index.js';
import {
  addSchedule,
  handleScheduledStart,
  listSchedules,
  nextScheduledStart,
  removeSchedule,
  scheduleId,
} from '../../../orchestrator/schedules.js';
import { feature, result, verdict } from '../../unit/orchestrator/fixtures.js';
import { connect, deleteKeys, newRun, uniquePrefix } from '../orchestrator/redis-helpers.js';
import { openOrchestrator, startControlWorker, type TestOrchestrator, waitFor } from './helpers.js';

const prefix = uniquePrefix();
let test: TestOrchestrator;

beforeAll(() => {
  test = openOrchestrator(prefix);
});

afterAll(async () => {
  await test.close();
  const redis = connect();
  await deleteKeys(redis, prefix);
  expect(await redis.keys(`${prefix}*`)).toEqual([]);
  redis.disconnect();
});

/** A run with three features, F-001 passing (cost so far $0.50), paused by the user. */
async function pausedRun() {
  const { store } = test.orchestrator;
  const run = await store.createRun(newRun({ budgets: { maxCostUsd: 3 } }));
  await store.replaceFeatures(run.id, [feature(1), feature(2), feature(3)]);
  await store.setStatus(run.id, 'building');
  const seq = await store.nextSeq(run.id);
  await store.recordSessionResult(
    run.id,
    seq,
    result('evaluator', ['F-001'], { verdicts: [verdict('F-001', 'pass', seq)] }),
  );
  return pauseRun(test.orchestrator, run.id);
}

describe('schedules', () => {
  it('a seconds-level cron schedule fires and resumes a paused run with the window deadline and budget', async () => {
    const { orchestrator } = test;
    const run = await pausedRun();
    expect(run).toMatchObject({ status: 'paused', pausedReason: 'user' });
    const added = await addSchedule(orchestrator, {
      runId: run.id,
      cron: '*/2 * * * * *',
      tz: 'UTC',
      forMs: 3_600_000,
      budgetUsd: 5,
    });
    expect(added).toMatchObject({
      runId: run.id,
      cron: '*/2 * * * * *',
      tz: 'UTC',
      forMs: 3_600_000,
      budgetUsd: 5,
    });
    expect(Date.parse(added.next ?? '')).toBeGreaterThan(Date.now() - 2_000);
    expect(Date.parse(added.next ?? '') % 2_000).toBe(0);

    const worker = startControlWorker(orchestrator);
    let resumed: Awaited<ReturnType<typeof orchestrator.store.getRun>>;
    try {
      resumed = await waitFor('the scheduled start', async () => {
        const current = await orchestrator.store.getRun(run.id);
        return current.status === 'paused' ? undefined : current;
      });
      // The run went on: its next session gets queued.
      await waitFor('the next session', async () => {
        const events = await orchestrator.store.readEvents(run.id, { count: 100 });
        return events.find((entry) => entry.event.type === 'session.queued');
      });
      // No second start from here on (the pattern fires every 2 s), so the window read below is the one in force.
      expect(await removeSchedule(orchestrator, run.id)).toBe(true);
    } finally {
      await worker.close();
    }
    expect(resumed.status).toBe('building');
    const current = await orchestrator.store.getRun(run.id);
    const window = await readWindow(orchestrator, run.id);
    expect(window).toMatchObject({ runId: run.id, passing: ['F-001'], costUsd: 0.5, maxCostUsd: 5.5 });
    const startedAt = Date.parse(window?.startedAt ?? '');
    expect(current.config.budgets.deadline).toBe(new Date(startedAt + 3_600_000).toISOString());
    expect(current.config.budgets.maxCostUsd).toBe(5.5);
    expect(window?.deadline).toBe(current.config.budgets.deadline);
    // An advance waits for the deadline, so the pause comes on time even with nothing else advancing the run.
    const deadlineJob = await orchestrator.queues.control.getJob(
      `deadline-${run.id}-${startedAt + 3_600_000}`,
    );
    expect(await deadlineJob?.getState()).toBe('delayed');
    expect(deadlineJob?.data).toEqual({ kind: 'advance', runId: run.id });
    expect(await nextScheduledStart(orchestrator, run.id)).toBeNull();
    expect(await removeSchedule(orchestrator, run.id)).toBe(false);
  });

  it('lists schedules with their next start, and removes them', async () => {
    const { orchestrator } = test;
    const a = await pausedRun();
    const b = await pausedRun();
    await addSchedule(orchestrator, {
      runId: a.id,
      cron: '0 1 * * *',
      tz: 'Europe/Berlin',
      forMs: 6 * 3_600_000,
    });
    await addSchedule(orchestrator, {
      runId: b.id,
      cron: '30 2 * * 1-5',
      tz: 'America/New_York',
      budgetUsd: 20,
    });
    const listed = await listSchedules(orchestrator);
    const byRun = new Map(listed.map((schedule) => [schedule.runId, schedule]));
    const nextA = byRun.get(a.id)?.next ?? '';
    // 01:00 in Berlin is 00:00 or 23:00 UTC, depending on daylight saving time.
    expect(new Date(nextA).getUTCMinutes()).toBe(0);
    expect([0, 23]).toContain(new Date(nextA).getUTCHours());
    expect(Date.parse(nextA)).toBeGreaterThan(Date.now());
    expect(Date.parse(nextA)).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000);
    expect(byRun.get(a.id)).toMatchObject({
      cron: '0 1 * * *',
      tz: 'Europe/Berlin',
      forMs: 21_600_000,
      budgetUsd: null,
    });
    expect(byRun.get(b.id)).toMatchObject({ tz: 'America/New_York', forMs: null, budgetUsd: 20 });
    expect(await nextScheduledStart(orchestrator, a.id)).toBe(nextA);
    // Adding again replaces the schedule.
    await addSchedule(orchestrator, { runId: a.id, cron: '0 3 * * *', tz: 'UTC' });
    expect((await listSchedules(orchestrator)).filter((schedule) => schedule.runId === a.id)).toMatchObject([
      { cron: '0 3 * * *', tz: 'UTC', forMs: null },
    ]);
    expect(new Date((await nextScheduledStart(orchestrator, a.id)) ?? '').getUTCHours()).toBe(3);
    expect(await removeSchedule(orchestrator, a.id)).toBe(true);
    expect(await removeSchedule(orchestrator, b.id)).toBe(true);
    const left = (await listSchedules(orchestrator)).map((schedule) => schedule.runId);
    expect(left).not.toContain(a.id);
    expect(left).not.toContain(b.id);
  });

  it('refuses unknown and finished runs, and drops the schedule of a run that ended', async () => {
    const { orchestrator } = test;
    await expect(addSchedule(orchestrator, { runId: 'r-missing', cron: '0 1 * * *' })).rejects.toBeInstanceOf(
      RunNotFoundError,
    );
    const run = await pausedRun();
    await addSchedule(orchestrator, { runId: run.id, cron: '0 1 * * *', tz: 'UTC' });
    await orchestrator.store.setStatus(run.id, 'cancelled');
    const outcome = await handleScheduledStart(orchestrator, {
      kind: 'scheduled-start',
      runId: run.id,
      forMs: 1000,
    });
    expect(outcome).toEqual({ kind: 'removed', reason: 'run is cancelled' });
    expect(await orchestrator.queues.control.getJobScheduler(scheduleId(run.id))).toBeUndefined();
    await expect(addSchedule(orchestrator, { runId: run.id, cron: '0 1 * * *' })).rejects.toMatchObject({
      code: 'SCHEDULE_RUN_FINISHED',
      exitCode: 2,
    });
  });

  it('leaves a failed run alone, and a window without a length clears a deadline that has passed', async () => {
    const { orchestrator } = test;
    const failed = await pausedRun();
    await orchestrator.store.setStatus(failed.id, 'failed', { detail: 'bad API key' });
    expect(await handleScheduledStart(orchestrator, { kind: 'scheduled-start', runId: failed.id })).toEqual({
      kind: 'skipped',
      reason: 'run failed: bad API key',
    });
    expect((await orchestrator.store.getRun(failed.id)).status).toBe('failed');

    const run = await pausedRun();
    await orchestrator.store.updateConfig(run.id, (config) => ({
      ...config,
      budgets: { ...config.budgets, deadline: '2020-01-01T00:00:00.000Z' },
    }));
    const started = await handleScheduledStart(orchestrator, { kind: 'scheduled-start', runId: run.id });
    expect(started).toMatchObject({
      kind: 'started',
      status: 'building',
      window: { deadline: null, maxCostUsd: 3 },
    });
    expect((await orchestrator.store.getRun(run.id)).config.budgets.deadline).toBeUndefined();
  });

  it('gives clear errors for a bad cron pattern or time zone', async () => {
    const { orchestrator } = test;
    const run = await pausedRun();
    await expect(addSchedule(orchestrator, { runId: run.id, cron: '61 * * * *' })).rejects.toMatchObject({
      code: 'SCHEDULE_CRON_INVALID',
      exitCode: 2,
      message: expect.stringContaining('"61 * * * *"'),
      hint: expect.stringContaining('"0 1 * * *"'),
    });
    await expect(
      addSchedule(orchestrator, { runId: run.id, cron: '0 1 * * *', tz: 'Mars/Olympus' }),
    ).rejects.toMatchObject({
      code: 'SCHEDULE_TZ_INVALID',
      message: expect.stringContaining('"Mars/Olympus"'),
      hint: expect.stringContaining('Europe/Berlin'),
    });
    expect(await nextScheduledStart(orchestrator, run.id)).toBeNull();
  });

  it('the CLI adds, lists and removes schedules; bad input is an InputError', async () => {
    const { orchestrator } = test;
    const run = await pausedRun();
    let output = '';
    let opened = 0;
    const program = () => {
      const root = new Command('nightshift').exitOverride();
      registerScheduleCommand(root, {
        withOrchestrator: async (fn) => {
          opened++;
          return fn(orchestrator);
        },
        stdout: { write: (text: string) => (output += text) },
      });
      return root;
    };
    const cli = (...args: string[]) => program().parseAsync(['node', 'nightshift', 'schedule', ...args]);

    await cli(
      'add',
      run.id,
      '--cron',
      '0 1 * * *',
      '--tz',
      'Europe/Berlin',
      '--for',
      '6h',
      '--budget-usd',
      '20',
    );
    expect(output).toContain(
      `Scheduled run ${run.id}: "0 1 * * *" (Europe/Berlin), for 6h, at most $20.00 per window`,
    );
    output = '';
    await cli('list', '--json');
    const listed = JSON.parse(output) as Array<Record<string, unknown>>;
    expect(listed.find((schedule) => schedule.runId === run.id)).toMatchObject({
      cron: '0 1 * * *',
      tz: 'Europe/Berlin',
      forMs: 21_600_000,
      budgetUsd: 20,
      next: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    output = '';
    await cli('list');
    expect(output).toMatch(/RUN\s+CRON\s+TZ\s+FOR\s+BUDGET\s+NEXT START/);
    expect(output).toContain('Europe/Berlin');

    const before = opened;
    await expect(cli('add', run.id, '--cron', '0 1 * * *', '--for', '6 hours')).rejects.toMatchObject({
      code: 'DURATION_INVALID',
      exitCode: 2,
      message: expect.stringContaining('"6 hours"'),
    });
    await expect(cli('add', run.id, '--cron', '0 25 * * *')).rejects.toMatchObject({
      code: 'SCHEDULE_CRON_INVALID',
    });
    await expect(cli('add', run.id, '--cron', '0 1 * * *', '--tz', 'Berlin')).rejects.toMatchObject({
      code: 'SCHEDULE_TZ_INVALID',
    });
    await expect(cli('add', run.id, '--cron', '0 1 * * *', '--budget-usd', 'lots')).rejects.toMatchObject({
      code: 'BUDGET_INVALID',
    });
    expect(opened).toBe(before); // bad input never reaches Redis

    output = '';
    await cli('remove', run.id);
    expect(output).toBe(`Removed the schedule of run ${run.id}.\n`);
    await expect(cli('remove', run.id)).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND', exitCode: 2 });
  });
});
