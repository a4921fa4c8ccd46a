import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunStatusJson } from '../../../cli/status.js';
import { advanceRun } from '../../../orchestrator/advance.js';
import { RunConfig } from '../../../orchestrator/config.js';
import { loadConfig } from '../../../orchestrator/config-load.js';
import { openQueues, type Queues } from '../../../orchestrator/queues.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import { connect, REDIS_URL } from '../orchestrator/redis-helpers.js';
import { cliEnv, deleteKeys, runCli, seedRun, tempDir, uniquePrefix } from './helpers.js';

// A newcomer's first hour, through the real CLI processes against real Redis: recoverable mistakes, clear
// refusals that change nothing, `status --json` as complete as the text, and the config commands.
// Each test starts a few CLI processes (node + tsx): seconds each on a busy machine.
vi.setConfig({ testTimeout: 300_000 });

let redis: Redis;
let store: RunStore;
let queues: Queues;
let prefix: string;
let home: string;
let env: NodeJS.ProcessEnv;

const cli = (args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) =>
  runCli(args, { env: options.env ?? env, cwd: options.cwd ?? home });

/** A digest of every file (path and bytes) under `dir`: equal before and after = untouched. */
function hashTree(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string) => {
    for (const entry of fs
      .readdirSync(at, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(at, entry.name);
      hash.update(path.relative(dir, full));
      if (entry.isDirectory()) walk(full);
      else hash.update(fs.readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** Runs git in `dir` as the workspace's own user would (not the harness). */
function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
}

/** A workspace as the autonomous-coding quickstart leaves it: a feature list without ids, committed. */
function quickstartWorkspace(name: string, initScript: string): string {
  const dir = path.join(home, name);
  fs.mkdirSync(dir);
  const list = [
    {
      category: 'functional',
      description: 'Add a todo',
      steps: ['Type a todo', 'Press Enter'],
      passes: false,
    },
  ];
  fs.writeFileSync(path.join(dir, 'feature_list.json'), JSON.stringify(list, null, 2));
  fs.writeFileSync(path.join(dir, 'claude-progress.txt'), 'Session 1: set up.\n');
  fs.writeFileSync(path.join(dir, 'init.sh'), initScript, { mode: 0o755 });
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-qm', 'quickstart session 1');
  return dir;
}

beforeAll(() => {
  redis = connect();
  prefix = uniquePrefix();
  home = tempDir('newcomer');
  env = cliEnv(home, prefix, { REDIS_URL });
  store = new RunStore(redis, { prefix });
  queues = openQueues({ url: REDIS_URL, maxRetriesPerRequest: null }, prefix);
});

afterAll(async () => {
  await queues.sessions.obliterate({ force: true }).catch(() => undefined);
  await queues.close();
  await deleteKeys(redis, prefix);
  await store.close();
  redis.disconnect();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('resume', () => {
  it('on a run that is not paused says so, exits 2 and queues nothing', async () => {
    await seedRun(store, 'r-active', { features: 3, passing: 1 });
    const before = await store.getRun('r-active');
    const out = await cli(['resume', 'r-active']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(
      /Run r-active was not resumed: it is building, not paused; nothing was queued/,
    );
    expect((await store.getRun('r-active')).seq).toBe(before.seq);
  });

  it('after a budget pause refuses to pause again at once, and raises the budget with --budget-usd', async () => {
    await store.createRun({
      id: 'r-budget',
      spec: { path: '/specs/todo.md', name: 'todo.md' },
      workspace: { kind: 'local', path: path.join(home, 'ws-budget') },
      config: RunConfig.parse({ budgets: { maxCostUsd: 1 } }),
    });
    await seedFeatures('r-budget', 2);
    await spend('r-budget', 2);
    await store.setStatus('r-budget', 'paused', {
      reason: 'budget',
      detail: 'cost $1.00 reached the budget',
    });

    const refused = await cli(['resume', 'r-budget']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/budget is still spent/);
    expect(refused.stderr).toMatch(/nightshift resume r-budget --budget-usd N/);
    expect(await store.getRun('r-budget')).toMatchObject({ status: 'paused', pausedReason: 'budget' });

    const raised = await cli(['resume', 'r-budget', '--budget-usd', '40', '--json']);
    expect(raised.code, raised.stderr).toBe(0);
    const json = RunStatusJson.parse(JSON.parse(raised.stdout));
    expect(json).toMatchObject({ status: 'building', budgets: { maxCostUsd: 40, costUsd: 1 } });
    const run = await store.getRun('r-budget');
    expect(run.config.budgets.maxCostUsd).toBe(40);
    expect(await queues.sessions.getJob(`r-budget-${run.seq}`)).toBeDefined();
  });
});

describe('a run that ends with blocked features', () => {
  it('is incomplete, not done: status says what is blocked and why; resume retries them', async () => {
    await store.createRun({
      id: 'r-blocked',
      spec: { path: '/specs/todo.md', name: 'todo.md' },
      workspace: { kind: 'local', path: path.join(home, 'ws-blocked') },
      config: RunConfig.parse({}),
    });
    await seedFeatures('r-blocked', 2);
    await spend('r-blocked', 1, true);
    await store.updateFeature('r-blocked', 'F-002', { blocked: true, blockedReason: '3 failed evaluations' });
    await store.setStatus('r-blocked', 'building');
    await advanceRun({ redis, store, queues, prefix, now: () => new Date() }, 'r-blocked');
    const run = await store.getRun('r-blocked');
    expect(run.status).toBe('incomplete');
    expect(run.detail).toMatch(/1 feature\(s\) blocked: F-002 \(3 failed evaluations\)/);

    const text = await cli(['status', 'r-blocked']);
    expect(text.stdout).toMatch(/status\s+incomplete: 1 feature\(s\) blocked/);
    expect(text.stdout).toMatch(/blocked\s+F-002: 3 failed evaluations/);
    const json = RunStatusJson.parse(JSON.parse((await cli(['status', 'r-blocked', '--json'])).stdout));
    expect(json.blocked).toEqual([{ featureId: 'F-002', reason: '3 failed evaluations' }]);
    expect(json.next).toMatch(/nightshift resume r-blocked/);

    const resumed = await cli(['resume', 'r-blocked']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await store.loadState('r-blocked');
    expect(after.run.status).toBe('building');
    expect(after.features.find((feature) => feature.id === 'F-002')).toMatchObject({
      blocked: false,
      attempts: 0,
    });
  });
});

describe('status after cancel', () => {
  it('no longer says a session is running, and the elapsed time stops', async () => {
    await seedRun(store, 'r-cancel', { features: 2, passing: 1 });
    const seq = await store.nextSeq('r-cancel');
    await store.recordSessionStarted('r-cancel', {
      seq,
      jobId: `r-cancel-${seq}`,
      role: 'generator',
      kind: 'generate',
      featureIds: ['F-002'],
      workerId: 'w-1',
    });
    expect((await cli(['cancel', 'r-cancel'])).code).toBe(0);
    const text = await cli(['status', 'r-cancel']);
    expect(text.stdout).toMatch(/last session\s+#\d+ generator F-002, stopped when the run ended cancelled/);
    expect(text.stdout).not.toMatch(/running for/);
    const first = RunStatusJson.parse(JSON.parse((await cli(['status', 'r-cancel', '--json'])).stdout));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const second = RunStatusJson.parse(JSON.parse((await cli(['status', 'r-cancel', '--json'])).stdout));
    expect(first.lastSession).toMatchObject({ state: 'stopped', role: 'generator' });
    expect(second.elapsedMs).toBe(first.elapsedMs);
  });
});

describe('status --json', () => {
  it('carries what the text view shows: last session, next step, budgets with spending, spec, unknown costs', async () => {
    await seedRun(store, 'r-json', { features: 3, passing: 2 });
    const json = RunStatusJson.parse(JSON.parse((await cli(['status', 'r-json', '--json'])).stdout));
    expect(json).toMatchObject({
      id: 'r-json',
      spec: { name: 'todo.md', path: '/specs/todo.md' },
      costUnknownSessions: 0,
      budgets: { costUsd: 1, maxCostUsd: 20, sessions: 2, maxSessions: 200 },
      lastSession: {
        seq: 2,
        role: 'evaluator',
        state: 'finished',
        verdicts: [{ featureId: 'F-002', verdict: 'pass' }],
      },
      next: expect.stringMatching(/generator session on F-003/),
    });
  });
});

describe('one run per workspace', () => {
  it('run on a workspace with an active run is refused and leaves the workspace byte for byte', async () => {
    const workspace = path.join(home, 'ws-busy');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'mine\n');
    await store.createRun({
      id: 'r-busy',
      spec: { path: '/specs/todo.md', name: 'todo.md' },
      workspace: { kind: 'local', path: workspace },
      config: RunConfig.parse({}),
    });
    await store.setStatus('r-busy', 'initializing');
    const spec = path.join(home, 'spec.md');
    fs.writeFileSync(spec, '# A todo app\n');
    const before = hashTree(workspace);
    const out = await cli(['run', spec, '--workspace', workspace, '--detach']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/already has run r-busy, which is initializing/);
    expect(out.stderr).toMatch(/nightshift cancel r-busy/);
    expect(hashTree(workspace)).toBe(before);
    expect(
      (await store.listRuns()).filter(
        (run) => run.workspace.kind === 'local' && run.workspace.path === workspace,
      ),
    ).toHaveLength(1);
  });

  it('run on a workspace whose run is paused resumes that run instead of starting a second one', async () => {
    const workspace = path.join(home, 'ws-paused');
    fs.mkdirSync(workspace);
    await store.createRun({
      id: 'r-paused',
      spec: { path: '/specs/todo.md', name: 'todo.md' },
      workspace: { kind: 'local', path: workspace },
      config: RunConfig.parse({}),
    });
    await seedFeatures('r-paused', 2);
    await store.setStatus('r-paused', 'paused', {
      reason: 'user',
      detail: 'interrupted (Ctrl-C) in the foreground',
    });
    const spec = path.join(home, 'spec.md');
    fs.writeFileSync(spec, '# A todo app\n');
    const out = await cli(['run', spec, '--workspace', workspace, '--detach', '--no-preflight-request'], {
      env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-test-0000' },
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout.trim()).toBe('r-paused');
    expect(out.stderr).toMatch(/run r-paused on this workspace was paused \(user\): resumed/);
    expect((await store.getRun('r-paused')).status).toBe('building');
  });

  it('adopts a quickstart workspace whose init.sh uses a fixed port: the first generator is asked for $PORT', async () => {
    const workspace = quickstartWorkspace('ws-fixed-port', '#!/bin/bash\nnpm install\nnode server.js 3000\n');
    const spec = path.join(home, 'spec.md');
    fs.writeFileSync(spec, '# A todo app\n');
    const out = await cli(['run', spec, '--workspace', workspace, '--detach', '--no-preflight-request'], {
      env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-test-0000' },
    });
    expect(out.code, out.stderr).toBe(0);
    const runId = out.stdout.trim();
    const status = await cli(['status', runId, '--json']);
    expect(JSON.parse(status.stdout).next).toMatch(/^generator session on F-001/);
    const feedback = fs.readFileSync(path.join(workspace, '.nightshift/feedback/F-001.md'), 'utf8');
    expect(feedback).toMatch(/^# Before this feature: make init\.sh use \$PORT/);
    expect(gitIn(workspace, 'status', '--porcelain')).toBe('');
    expect(gitIn(workspace, 'log', '-1', '--format=%s')).toMatch(/\$PORT task on F-001/);
  });

  it('a quickstart workspace it cannot adopt is refused and left byte for byte, .git included', async () => {
    const workspace = quickstartWorkspace('ws-refused', '#!/bin/bash\nnode server.js 3000\n');
    // A feature without steps: not adoptable, and nothing (not the ids, not the port task) may be written.
    fs.writeFileSync(
      path.join(workspace, 'feature_list.json'),
      JSON.stringify([{ category: 'functional', description: 'Add a todo', passes: false }]),
    );
    const spec = path.join(home, 'spec.md');
    fs.writeFileSync(spec, '# A todo app\n');
    const before = hashTree(workspace);
    const out = await cli(['run', spec, '--workspace', workspace, '--detach', '--no-preflight-request'], {
      env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-test-0000' },
    });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/cannot be resumed:\n.*feature_list\.json: \[0\]\.steps/);
    expect(hashTree(workspace)).toBe(before);
  });

  it('--workspace naming a file is a clear error without a stack trace', async () => {
    const file = path.join(home, 'a-file');
    fs.writeFileSync(file, 'x');
    const spec = path.join(home, 'spec.md');
    fs.writeFileSync(spec, '# A todo app\n');
    const out = await cli(['run', spec, '--workspace', file, '--detach']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/The workspace .*a-file is a file, not a directory/);
    expect(out.stderr).not.toMatch(/\n\s+at /);
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });
});

describe('config commands', () => {
  it('init writes a commented sample config that loads, and refuses to overwrite it', async () => {
    const dir = tempDir('init');
    try {
      const first = await cli(['init'], { cwd: dir });
      expect(first.code, first.stderr).toBe(0);
      const file = path.join(dir, 'nightshift.config.json');
      const written = fs.readFileSync(file, 'utf8');
      expect(written).toContain('"//"');
      expect(loadConfig({ cwd: dir, env: {} }).config.run.budgets.maxCostUsd).toBe(20);
      const second = await cli(['init'], { cwd: dir });
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/already exists; it was left as it is/);
      expect(fs.readFileSync(file, 'utf8')).toBe(written);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--version prints the package version; run --help shows the defaults', async () => {
    const version = await cli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await cli(['run', '--help']);
    expect(help.stdout).toMatch(/default: \$20/);
    expect(help.stdout).toMatch(/default: 200/);
  });

  it('a price keyed by a bare model name is an error naming provider:model', async () => {
    const dir = tempDir('price');
    try {
      const config = { run: { prices: { 'claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 } } } };
      fs.writeFileSync(path.join(dir, 'nightshift.config.json'), JSON.stringify(config));
      const out = await cli(['runs'], { cwd: dir });
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/run\.prices\.claude-sonnet-4-5: .*"anthropic:claude-sonnet-4-5"/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Gives a run features F-001..F-00n (none passing) and moves it to building. */
async function seedFeatures(id: string, count: number): Promise<void> {
  const { feature } = await import('../../unit/orchestrator/fixtures.js');
  await store.setStatus(id, 'initializing');
  await store.replaceFeatures(
    id,
    Array.from({ length: count }, (_, index) => feature(index + 1)),
  );
  await store.setStatus(id, 'building');
}

/** `sessions` finished evaluator sessions at $0.50 each (passing F-001.. when `pass`). */
async function spend(id: string, sessions: number, pass = false): Promise<void> {
  const { result, verdict } = await import('../../unit/orchestrator/fixtures.js');
  for (let n = 1; n <= sessions; n++) {
    const seq = await store.nextSeq(id);
    const featureId = `F-00${n}`;
    await store.recordSessionResult(
      id,
      seq,
      result('evaluator', [featureId], pass ? { verdicts: [verdict(featureId, 'pass', seq)] } : {}),
    );
  }
}
