import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../../agent/cost.js';
import { InputError } from '../../../core/errors.js';
import {
  buildRunConfig,
  loadConfig,
  parseDuration,
  plannerModelId,
  RunConfig,
} from '../../../orchestrator/config.js';
import { T0 } from './fixtures.js';

function thrown(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

describe('RunConfig', () => {
  it('has budgets on by default', () => {
    const config = RunConfig.parse({});
    expect(config.models).toEqual({
      initializer: 'anthropic:claude-sonnet-4-5',
      generator: 'anthropic:claude-sonnet-4-5',
      evaluator: 'anthropic:claude-sonnet-4-5',
    });
    expect(config.budgets).toMatchObject({
      maxCostUsd: 20,
      maxSessions: 200,
      maxAttemptsPerFeature: 3,
      stuckAfterEvaluations: 6,
    });
    expect(config.budgets.deadline).toBeUndefined();
    expect(config.regressEvery).toBe(5);
    expect(config.limits.generator).toEqual({ maxSteps: 200, maxMinutes: 45 });
    expect(config.sandbox).toEqual({ network: 'registries', allowHosts: [], bubblewrap: 'auto', roles: {} });
    expect(config.notifications.webhooks).toEqual([]);
    expect(config.prices).toEqual(DEFAULT_PRICES);
  });

  it('merges configured prices over the defaults, and re-parsing a stored config changes nothing', () => {
    const config = RunConfig.parse({
      prices: { 'openai-compatible:local': { inputPerMTok: 0, outputPerMTok: 0 } },
    });
    expect(config.prices['openai-compatible:local']).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(config.prices['anthropic:claude-sonnet-4-5']).toEqual(
      DEFAULT_PRICES['anthropic:claude-sonnet-4-5'],
    );
    expect(RunConfig.parse(JSON.parse(JSON.stringify(config)))).toEqual(config);
  });

  it('applies --model to every role and role flags over it; --for sets a deadline', () => {
    const config = buildRunConfig(
      { budgets: { maxCostUsd: 5 } },
      {
        model: 'openai:gpt-5.1',
        modelEvaluator: 'anthropic:claude-haiku-4-5',
        forDuration: '6h',
        maxSessions: 9,
      },
      T0,
    );
    expect(config.models).toEqual({
      initializer: 'openai:gpt-5.1',
      generator: 'openai:gpt-5.1',
      evaluator: 'anthropic:claude-haiku-4-5',
      planner: 'openai:gpt-5.1',
    });
    expect(config.budgets).toMatchObject({
      maxCostUsd: 5,
      maxSessions: 9,
      deadline: '2026-01-01T06:00:00.000Z',
    });
  });

  it("resolves the planner's model: --model, then models.planner, then the generator's", () => {
    const defaults = RunConfig.parse({});
    expect(defaults.models.planner).toBeUndefined();
    expect(plannerModelId(defaults.models)).toBe('anthropic:claude-sonnet-4-5');
    const generatorOnly = buildRunConfig({ models: { generator: 'openai:gpt-5.1' } }, {}, T0);
    expect(plannerModelId(generatorOnly.models)).toBe('openai:gpt-5.1');
    const configured = buildRunConfig(
      { models: { generator: 'openai:gpt-5.1', planner: 'anthropic:claude-opus-4-5' } },
      {},
      T0,
    );
    expect(plannerModelId(configured.models)).toBe('anthropic:claude-opus-4-5');
    expect(plannerModelId(configured.models, 'anthropic:claude-haiku-4-5')).toBe(
      'anthropic:claude-haiku-4-5',
    );
    const flagged = buildRunConfig({}, { modelPlanner: 'anthropic:claude-haiku-4-5' }, T0);
    expect(flagged.models.planner).toBe('anthropic:claude-haiku-4-5');
    expect(flagged.limits.planner).toEqual({ maxSteps: 12, maxMinutes: 30 });
    const error = thrown(() => buildRunConfig({}, { modelPlanner: 'haiku' }, T0));
    expect(error.message).toContain('models.planner: model ids look like provider:model');
  });

  it('names the bad field of a bad override', () => {
    const error = thrown(() => buildRunConfig({}, { model: 'sonnet', budgetUsd: -1 }, T0));
    expect(error.message).toContain('models.initializer: model ids look like provider:model');
    expect(error.message).toContain('budgets.maxCostUsd: Too small');
  });
});

describe('loadConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-config-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (value: unknown) =>
    fs.writeFileSync(
      path.join(dir, 'nightshift.config.json'),
      typeof value === 'string' ? value : JSON.stringify(value),
    );

  it('works with no file at all', () => {
    const { config, source } = loadConfig({ cwd: dir, env: { NIGHTSHIFT_HOME: '/data/ns' } });
    expect(source).toBeNull();
    expect(config).toMatchObject({
      dataDir: '/data/ns',
      keyPrefix: 'nightshift:',
      worker: { concurrency: 1 },
    });
    expect(config.dashboard).toEqual({ host: '127.0.0.1', port: 7070 });
    expect(config.run.budgets.maxCostUsd).toBe(20);
  });

  it('reads the file and lets the environment override it', () => {
    write({
      redisUrl: 'redis://file:6379',
      dataDir: 'data',
      worker: { concurrency: 3 },
      run: { regressEvery: 2 },
    });
    const { config, source } = loadConfig({
      cwd: dir,
      env: { REDIS_URL: 'redis://env:6380', NIGHTSHIFT_DASHBOARD_PORT: '8080' },
    });
    expect(source).toBe(path.join(dir, 'nightshift.config.json'));
    expect(config).toMatchObject({
      redisUrl: 'redis://env:6380',
      dataDir: path.join(dir, 'data'),
      worker: { concurrency: 3 },
      dashboard: { port: 8080 },
      run: { regressEvery: 2 },
    });
  });

  it('names every bad field and the file it came from', () => {
    write({
      run: { budgets: { maxCostUsd: '20', maxSessions: 0 }, models: { generator: 'gpt' } },
      worker: { concurency: 2 },
      dashboard: { port: 70000 },
      openaiCompatible: { local: { baseURL: 'not a url' } },
    });
    const error = thrown(() => loadConfig({ cwd: dir, env: {} }));
    const file = path.join(dir, 'nightshift.config.json');
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`Invalid configuration in ${file}:`);
    expect(error.message).toContain('run.budgets.maxCostUsd: expected number, received string');
    expect(error.message).toContain('run.budgets.maxSessions: Too small');
    expect(error.message).toContain('run.models.generator: model ids look like provider:model');
    expect(error.message).toContain('worker: Unrecognized key: "concurency"');
    expect(error.message).toContain('dashboard.port: Too big');
    expect(error.message).toContain('openaiCompatible.local.baseURL');
  });

  it('names the environment variable behind a bad value', () => {
    const error = thrown(() =>
      loadConfig({ cwd: dir, env: { NIGHTSHIFT_WORKER_CONCURRENCY: 'many', REDIS_URL: 'localhost:6379' } }),
    );
    expect(error.message).toContain('Invalid configuration in the environment:');
    expect(error.message).toContain(
      'worker.concurrency (from $NIGHTSHIFT_WORKER_CONCURRENCY): expected number, received string',
    );
    expect(error.message).toContain('redisUrl (from $REDIS_URL): expected a redis:// or rediss:// URL');
  });

  it('reports a file that is not JSON, and a named file that does not exist', () => {
    write('{ "redisUrl": ');
    expect(thrown(() => loadConfig({ cwd: dir, env: {} })).message).toMatch(
      /nightshift\.config\.json is not valid JSON/,
    );
    const missing = thrown(() => loadConfig({ cwd: dir, env: {}, file: 'other.json' }));
    expect(missing.code).toBe('CONFIG_NOT_FOUND');
    expect(missing.message).toContain(path.join(dir, 'other.json'));
  });

  it('does not read a config file a model could have written: the working directory is a workspace', () => {
    // A generator writes nightshift.config.json into its workspace (the box lets it); an operator later runs
    // nightshift there. Read, it would name a program the worker runs on the host (chromiumPath), switch the
    // box off for new runs and move the data dir.
    fs.mkdirSync(path.join(dir, '.nightshift'));
    fs.writeFileSync(path.join(dir, 'feature_list.json'), '[]\n');
    write({ chromiumPath: '/tmp/evil.sh', run: { sandbox: { bubblewrap: 'off' } }, dataDir: 'loot' });
    const error = thrown(() => loadConfig({ cwd: dir, env: {} }));
    expect(error.code).toBe('CONFIG_IN_WORKSPACE');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(path.join(dir, 'nightshift.config.json'));
    expect(error.hint).toMatch(/--config/);
    for (const marker of ['.nightshift', 'feature_list.json']) {
      fs.rmSync(path.join(dir, '.nightshift'), { recursive: true, force: true });
      fs.rmSync(path.join(dir, 'feature_list.json'), { force: true });
      if (marker === '.nightshift') fs.mkdirSync(path.join(dir, marker));
      else fs.writeFileSync(path.join(dir, marker), '[]\n');
      expect(thrown(() => loadConfig({ cwd: dir, env: {} })).code, marker).toBe('CONFIG_IN_WORKSPACE');
    }
    // Named explicitly, the operator has chosen the file: it is read.
    const named = loadConfig({ cwd: dir, env: {}, file: 'nightshift.config.json' });
    expect(named.config.chromiumPath).toBe('/tmp/evil.sh');
  });

  it('takes the file from $NIGHTSHIFT_CONFIG', () => {
    fs.writeFileSync(path.join(dir, 'custom.json'), JSON.stringify({ keyPrefix: 'ns-test:' }));
    const { config, source } = loadConfig({
      cwd: '/',
      env: { NIGHTSHIFT_CONFIG: path.join(dir, 'custom.json') },
    });
    expect(source).toBe(path.join(dir, 'custom.json'));
    expect(config.keyPrefix).toBe('ns-test:');
  });
});

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['90m', 5_400_000],
    ['6h', 21_600_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
  ])('%s = %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '6', 'h', '6 hours', '-1h', '0s', '1w', '6h-'])('rejects %j with a clear error', (text) => {
    const error = thrown(() => parseDuration(text));
    expect(error.code).toBe('DURATION_INVALID');
    expect(error.message).toBe(`Invalid duration "${text}".`);
    expect(error.hint).toContain('30s, 90m, 6h, 1d');
  });
});
