import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAdminCommands } from '../../../cli/admin.js';
import { RunStatusJson } from '../../../cli/status.js';
import { sessionJobId } from '../../../orchestrator/keys.js';
import { RunNotFoundError, RunStore } from '../../../orchestrator/run/index.js';
import { connect } from '../orchestrator/redis-helpers.js';
import { cliEnv, deleteKeys, runInProcess, seedRun, storedRun, tempDir, uniquePrefix } from './helpers.js';

// In-process: the commands registered on a bare program, against real Redis, with env/cwd/stdout injected.
let redis: Redis;
let store: RunStore;
let prefix: string;
let home: string;
const T = new Date('2026-03-01T12:00:00.000Z');

const admin = (args: string[], extra: NodeJS.ProcessEnv = {}, cwd = home) =>
  runInProcess([registerAdminCommands], args, {
    env: cliEnv(home, prefix, extra),
    cwd: () => cwd,
    now: () => T,
  });

beforeAll(async () => {
  redis = connect();
  prefix = uniquePrefix();
  home = tempDir('admin');
  store = new RunStore(redis, { prefix });
  await seedRun(store, 'r-older', { features: 3, passing: 0 });
  await seedRun(store, 'r-newest', { features: 4, passing: 1 });
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  await store.close();
  redis.disconnect();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('status', () => {
  it('prints the documented status schema with --json', async () => {
    const out = await admin(['status', 'r-newest', '--json']);
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout);
    const run = await store.getRun('r-newest');
    // Strict: a field the schema does not name fails the parse, and the keys come in the schema's order.
    expect(RunStatusJson.parse(json)).toEqual(json);
    expect(Object.keys(json)).toEqual(Object.keys(RunStatusJson.shape));
    expect(json).toMatchObject({
      id: 'r-newest',
      status: 'building',
      pausedReason: null,
      workspace: '/tmp/ws',
      features: { total: 4, passing: 1, failing: 3, blocked: 0 },
      blocked: [],
      sessions: 1,
      costUsd: 0.5,
      costUnknownSessions: 0,
      budgets: { costUsd: 0.5, maxCostUsd: 20, sessions: 1 },
      lastSession: { seq: 1, role: 'evaluator', verdicts: [{ featureId: 'F-001', verdict: 'pass' }] },
      workers: 0,
      startedAt: run.startedAt,
      updatedAt: run.updatedAt,
    });
    expect(json.next).toContain('generator session on F-002');
  });

  it('shows the newest run when RUN is omitted, in human form with the next step', async () => {
    const out = await admin(['status']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('r-newest');
    // The story's groups: failing and blocked always, the others when not empty (never evaluated: not started).
    expect(out.stdout).toMatch(/1\/4 passing · 0 failed, to retry · 0 blocked · 3 not started\n/);
    expect(out.stdout).toContain('$0.50 of $20.00');
    expect(out.stdout).toMatch(/last session\s+#1 evaluator F-001 → completed \(F-001 pass\)/);
    // The planner's next step after a pass: the generator on the next failing feature; no worker is running.
    expect(out.stdout).toMatch(/next\s+generator session on F-002 \(no worker is connected/);
  });

  it('exits 2 naming an unknown run', async () => {
    const out = await admin(['status', 'r-missing', '--json']);
    expect(out.code).toBe(2);
    expect(out.error).toBeInstanceOf(RunNotFoundError);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain('Run r-missing does not exist');
  });

  it('exits 2 naming the bad field of an invalid config file', async () => {
    const dir = tempDir('badconfig');
    try {
      fs.writeFileSync(
        path.join(dir, 'nightshift.config.json'),
        JSON.stringify({ worker: { concurrency: 0 } }),
      );
      const out = await admin(['status', '--json'], {}, dir);
      expect(out.code).toBe(2);
      expect(out.error?.code).toBe('CONFIG_INVALID');
      expect(out.stderr).toContain('worker.concurrency');
      expect(out.stdout).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('runs', () => {
  it('lists runs newest first, as JSON status documents', async () => {
    const out = await admin(['runs', '--json']);
    expect(out.code).toBe(0);
    const runs = JSON.parse(out.stdout);
    expect(runs.map((run: { id: string }) => run.id)).toEqual(['r-newest', 'r-older']);
    expect(runs[1]).toMatchObject({ features: { total: 3, passing: 0 }, sessions: 0, costUsd: 0 });
  });

  it('prints a table', async () => {
    const out = await admin(['runs']);
    const lines = out.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^RUN\s+NAME\s+STATUS\s+FEATURES\s+SESSIONS\s+COST\s+STARTED$/);
    expect(lines[1]).toMatch(/^r-newest\s+todo\s+building\s+\[.+\] 1\/4\s+1\s+\$0\.50/);
    expect(lines).toHaveLength(3);
  });
});

describe('pause, resume, cancel', () => {
  it('pauses (reason user), resumes (queues the next session) and cancels, as stored in Redis', async () => {
    await seedRun(store, 'r-ctl', { features: 2, passing: 0 });

    const paused = await admin(['pause', 'r-ctl']);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toMatch(/^r-ctl paused \(user\)/);
    expect(await storedRun(redis, prefix, 'r-ctl')).toMatchObject({ status: 'paused', pausedReason: 'user' });

    const resumed = await admin(['resume', 'r-ctl', '--json']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id: 'r-ctl', status: 'building', pausedReason: null });
    const run = await store.getRun('r-ctl');
    expect(run.seq).toBe(1);
    const queue = new (await import('bullmq')).Queue('sessions', {
      connection: redis.duplicate({ maxRetriesPerRequest: null }),
      prefix: `${prefix}bull`,
    });
    try {
      const job = await queue.getJob(sessionJobId('r-ctl', 1));
      expect(job?.data).toEqual({ runId: 'r-ctl', seq: 1, action: { kind: 'generate', featureId: 'F-001' } });

      const cancelled = await admin(['cancel', 'r-ctl']);
      expect(cancelled.stdout).toMatch(/^r-ctl cancelled/);
      expect(await storedRun(redis, prefix, 'r-ctl')).toMatchObject({ status: 'cancelled' });
      // The queued, not yet started session of a cancelled run is dropped.
      expect(await queue.getJob(sessionJobId('r-ctl', 1))).toBeUndefined();
    } finally {
      await queue.close();
    }
  });

  it('refuses to resume a cancelled run with exit 2', async () => {
    const out = await admin(['resume', 'r-ctl']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      'Run r-ctl was not resumed: it is cancelled, not paused; nothing was queued.',
    );
  });

  it('refuses to resume a running run, saying no worker is connected and how to start one (not "resume")', async () => {
    const out = await admin(['resume', 'r-newest']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      'Run r-newest was not resumed: it is building, not paused; nothing was queued.',
    );
    expect(out.stderr).toContain(
      'It is already running, but no worker is connected: start one with `nightshift worker`, or work it here with `nightshift run /specs/todo.md --workspace /tmp/ws`.',
    );
  });

  it('exits 2 without a run id (bad usage)', async () => {
    const out = await admin(['pause']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("missing required argument 'run'");
  });

  it('exits 2 for an unknown run', async () => {
    for (const command of ['pause', 'resume', 'cancel']) {
      const out = await admin([command, 'r-nope']);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain('Run r-nope does not exist');
    }
  });
});
