// `run`'s progress over a run in lanes, read from real Redis through the run store: the busy lanes on the progress
// line, one line per verdict and merge-queue result above it, and the cost of every session in flight added up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRun, InFlightCost } from '../../../cli/follow.js';
import type { Orchestrator } from '../../../orchestrator/orchestrator.js';
import { type RunRecord, RunVanishedError } from '../../../orchestrator/run/index.js';
import { openStore, SteppingClock, seedRun } from '../dashboard/seed.js';
import { type SeededLanes, seedLanes } from '../dashboard/seed-lanes.js';

describe('progress of a run in lanes', () => {
  let env: Awaited<ReturnType<typeof openStore>>;
  let run: RunRecord;
  let seeded: SeededLanes;
  const clock = new SteppingClock(Date.now() - 3_600_000);

  const usage = async (seq: number, costUsd: number | null) =>
    env.store.appendEvent(run.id, {
      type: 'agent',
      runId: run.id,
      at: clock.now().toISOString(),
      seq,
      event: {
        type: 'model.usage',
        at: clock.now().toISOString(),
        sessionId: `s${seq}`,
        step: 1,
        usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd,
        durationMs: 5,
      },
    });

  beforeAll(async () => {
    env = await openStore(clock);
    run = await seedRun(env.store, {
      features: 8,
      sessions: 2,
      workspace: '/tmp/ns-follow-lanes',
      clock,
      verdictFor: () => 'pass',
    });
    seeded = await seedLanes(env.store, run.id, clock);
  });

  afterAll(async () => {
    await env?.cleanup();
  });

  it('adds up the cost of every session in flight, and unknown when one has no price', async () => {
    await usage(seeded.generatorSeq, 0.1);
    await usage(seeded.evaluatorSeq, 0.25);
    await usage(seeded.generatorSeq, 0.05);
    const cost = new InFlightCost({ store: env.store }, run.id);
    expect(await cost.of([seeded.generatorSeq])).toBeCloseTo(0.15, 6);
    expect(await cost.of([seeded.generatorSeq, seeded.evaluatorSeq])).toBeCloseTo(0.4, 6);
    expect(await cost.of([])).toBe(0);
    await usage(seeded.evaluatorSeq + 50, null);
    expect(await cost.of([seeded.generatorSeq, seeded.evaluatorSeq + 50])).toBeNull();
  });

  it('shows the lanes on the progress line, with a line per merge result above it', async () => {
    const stop = new AbortController();
    let text = '';
    const stream = {
      isTTY: false,
      write(chunk: string) {
        text += chunk;
        if (chunk.includes('lanes:')) stop.abort();
        return true;
      },
    };
    const orchestrator = { store: env.store, now: clock.now } as unknown as Orchestrator;
    await followRun(orchestrator, run.id, { stream, intervalMs: 5, signal: stop.signal });
    const lines = text.trim().split('\n');
    // Above the progress line: a line per merge result (and per verdict of the seeded sessions).
    expect(lines.filter((line) => line.startsWith('merge queue: '))).toEqual([
      'merge queue: lane 1 · F-003 merged (head c0ffee1, 1 check(s) green on the merged head)',
      'merge queue: lane 3 · F-006: conflict in src/list.ts, src/store.ts — back to a generator',
      'merge queue: lane 3 · F-006: rejected, red checks on the merged head: F-001: the task list is empty after a reload — back to a generator',
    ]);
    expect(lines).toContain('F-001 pass (session 3)');
    const progress = lines.findIndex((line) => line.includes(' · lanes: '));
    expect(lines[progress]).toContain(
      ' · lanes: 1 F-004 generator · 2 merging F-005 · 3 F-006 waiting to merge · ',
    );
    expect(lines.slice(progress + 1).filter((line) => line.startsWith('merge queue: '))).toEqual([]);
    expect(lines.at(-1)).toMatch(/^run building — /);
  });
});

describe('the end of a followed run', () => {
  it('still prints the verdicts that came between the last poll and the end', async () => {
    const clock = new SteppingClock(Date.now() - 3_600_000);
    const env = await openStore(clock);
    try {
      const run = await seedRun(env.store, {
        features: 2,
        sessions: 2,
        workspace: '/tmp/ns-follow-end',
        clock,
        verdictFor: () => 'pass',
      });
      let text = '';
      let ended: Promise<unknown> | undefined;
      const stream = {
        isTTY: false,
        write(chunk: string) {
          text += chunk;
          // After the first poll, and long before the next: the last verdict and the run's end land together.
          ended ??= (async () => {
            await env.store.appendEvent(run.id, {
              type: 'verdict.applied',
              runId: run.id,
              at: clock.now().toISOString(),
              seq: 9,
              featureId: 'F-002',
              verdict: 'fail',
              mode: 'evaluate',
              passes: false,
              attempts: 1,
              reason: 'the last item stays after Delete',
            });
            await env.store.setStatus(run.id, 'cancelled');
          })();
          return true;
        },
      };
      const orchestrator = { store: env.store, now: clock.now } as unknown as Orchestrator;
      await followRun(orchestrator, run.id, { stream, intervalMs: 1_000 });
      await ended;
      const lines = text.trim().split('\n');
      expect(lines, text).toContain('F-002 fail (attempt 1): the last item stays after Delete (session 9)');
      expect(lines.at(-1)).toMatch(/^run cancelled/);
    } finally {
      await env.cleanup();
    }
  });

  it('ends with RunVanishedError, not "does not exist", when the run goes from Redis while followed', async () => {
    const clock = new SteppingClock(Date.now() - 3_600_000);
    const env = await openStore(clock);
    try {
      const run = await seedRun(env.store, {
        features: 2,
        sessions: 1,
        workspace: '/tmp/ns-follow-gone',
        clock,
      });
      let deleted: Promise<void> | undefined;
      const stream = {
        isTTY: false,
        write() {
          // After the first poll, as a Redis restarted without its data would leave it.
          deleted ??= env.store.deleteRun(run.id);
          return true;
        },
      };
      const orchestrator = { store: env.store, now: clock.now } as unknown as Orchestrator;
      const followed = followRun(orchestrator, run.id, { stream, intervalMs: 5 });
      await expect(followed).rejects.toThrow(RunVanishedError);
      await expect(followed).rejects.toMatchObject({ code: 'RUN_VANISHED', exitCode: 1 });
      await deleted;
    } finally {
      await env.cleanup();
    }
  });
});
