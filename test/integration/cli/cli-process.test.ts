import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReport } from '../../../cli/doctor.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import { CHROMIUM_INSTALL_COMMAND } from '../../../workers/chromium-path.js';
import { connect } from '../orchestrator/redis-helpers.js';
import { cliEnv, deleteKeys, runCli, seedRun, storedRun, tempDir, uniquePrefix } from './helpers.js';

// The real CLI (`node bin/nightshift.js`) as child processes against real Redis, runs seeded through RunStore.
// These need status/runs/pause/resume/cancel/doctor wired into cli/main.ts.
let redis: Redis;
let store: RunStore;
let prefix: string;
let home: string;
let env: NodeJS.ProcessEnv;

const cli = (args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) =>
  runCli(args, { env: options.env ?? env, cwd: options.cwd ?? home });

beforeAll(async () => {
  redis = connect();
  prefix = uniquePrefix();
  home = tempDir('cli');
  env = cliEnv(home, prefix);
  store = new RunStore(redis, { prefix });
  await seedRun(store, 'r-proc', { features: 3, passing: 2 });
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  await store.close();
  redis.disconnect();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('nightshift CLI processes', () => {
  it('status RUN --json prints exactly the DESIGN.md document and nothing else', async () => {
    const out = await cli(['status', 'r-proc', '--json']);
    expect(out.code, out.stderr).toBe(0);
    const run = await store.getRun('r-proc');
    expect(JSON.parse(out.stdout)).toMatchObject({
      id: 'r-proc',
      status: 'building',
      pausedReason: null,
      workspace: '/tmp/ws',
      features: { total: 3, passing: 2, failing: 1, blocked: 0 },
      sessions: 2,
      costUsd: 1,
      costUnknownSessions: 0,
      startedAt: run.startedAt,
      updatedAt: run.updatedAt,
    });
  });

  it('runs --json prints an array of the same documents', async () => {
    const out = await cli(['runs', '--json']);
    expect(out.code, out.stderr).toBe(0);
    const runs = JSON.parse(out.stdout);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: 'r-proc', status: 'building', sessions: 2 });
  });

  it('refuses a NIGHTSHIFT_SPAWN_HELPER value other than on/off before running the command', async () => {
    const out = await cli(['pause', 'r-proc'], { env: { ...env, NIGHTSHIFT_SPAWN_HELPER: 'of' } });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/NIGHTSHIFT_SPAWN_HELPER must be "on", "node" or "off", not "of"/);
    expect(await storedRun(redis, prefix, 'r-proc')).toMatchObject({ status: 'building' });
  });

  it('pause, resume and cancel change the run in Redis', async () => {
    const paused = await cli(['pause', 'r-proc']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(/^r-proc paused \(user\)/);
    expect(await storedRun(redis, prefix, 'r-proc')).toMatchObject({
      status: 'paused',
      pausedReason: 'user',
    });

    const resumed = await cli(['resume', 'r-proc']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^r-proc building/);
    expect(await storedRun(redis, prefix, 'r-proc')).toMatchObject({
      status: 'building',
      pausedReason: null,
    });

    const cancelled = await cli(['cancel', 'r-proc']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(await storedRun(redis, prefix, 'r-proc')).toMatchObject({ status: 'cancelled' });
  });

  it('an unknown run exits 2 with a message on stderr', async () => {
    const out = await cli(['status', 'r-unknown']);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain('Run r-unknown does not exist');
  });

  it('an invalid config file exits 2 naming the field', async () => {
    const dir = tempDir('cli-config');
    try {
      fs.writeFileSync(
        path.join(dir, 'nightshift.config.json'),
        JSON.stringify({ dashboard: { port: 'x' } }),
      );
      const out = await cli(['runs', '--json'], { cwd: dir });
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toMatch(/dashboard\.port/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('doctor --json reports each check and never prints an API key', async () => {
    const secret = 'sk-test-should-never-appear-123456';
    const out = await cli(['doctor', '--json'], {
      env: {
        ...env,
        ANTHROPIC_API_KEY: secret,
        // A closed loopback port: the doctor's real request stays on this machine.
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
        NIGHTSHIFT_CHROMIUM_PATH: path.join(home, 'no-chromium'),
      },
    });
    expect(out.stdout).not.toContain(secret);
    expect(out.stderr).not.toContain(secret);
    const report = DoctorReport.parse(JSON.parse(out.stdout));
    expect(report.checks.map((check) => check.name)).toEqual([
      'config',
      'node',
      'redis',
      'chromium',
      'git',
      'bubblewrap',
      'box memory',
      'data dir',
      'api keys',
      'model server',
      'models',
    ]);
    const byName = Object.fromEntries(report.checks.map((check) => [check.name, check]));
    expect(byName.redis?.status).toBe('ok');
    expect(byName['api keys']?.detail).toContain('ANTHROPIC_API_KEY set');
    // A missing Chromium is a failure with a fix, and a failure means exit 1.
    expect(byName.chromium).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining(CHROMIUM_INSTALL_COMMAND),
    });
    expect(report.ok).toBe(false);
    expect(out.code).toBe(1);
  });
});
