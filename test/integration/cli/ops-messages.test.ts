/**
 * Messages and current models through the real CLI (child processes, real Redis): a bad value is named once with
 * what was given and a good example, schema messages are for people, misspelt keys, commands and options get a
 * "did you mean", and a retired model is refused (by `run` and `init`) with its replacement named, nothing written.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerInitCommand } from '../../../cli/init.js';
import { DEFAULT_MODEL } from '../../../orchestrator/config.js';
import { connect, REDIS_URL } from '../orchestrator/redis-helpers.js';
import { cliEnv, deleteKeys, runCli, runInProcess, tempDir, uniquePrefix } from './helpers.js';

// Each case starts one CLI process (node + tsx): seconds each on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

let redis: Redis;
let prefix: string;
let root: string;
let env: NodeJS.ProcessEnv;
let spec: string;

beforeAll(() => {
  redis = connect();
  prefix = uniquePrefix();
  root = fs.realpathSync(tempDir('ops-messages'));
  env = cliEnv(path.join(root, 'home'), prefix, {
    REDIS_URL,
    ANTHROPIC_API_KEY: 'sk-ant-placeholder-for-input-checks',
    NIGHTSHIFT_PREFLIGHT_REQUEST: '0',
  });
  spec = path.join(root, 'app_spec.md');
  fs.writeFileSync(spec, '# A todo app\n\nAdd and list todos.\n');
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
  fs.rmSync(root, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli(args, { env, cwd: root });
const count = (text: string, needle: string) => text.split(needle).length - 1;
/** Run keys under the prefix (BullMQ's queue metadata, written when the CLI opens its queues, is no run). */
const runKeys = async () => (await redis.keys(`${prefix}*`)).filter((key) => !/:bull:[^:]+:meta$/.test(key));

describe('a bad value', () => {
  it('--model is named once, with the value, the model meant and an example; nothing is written', async () => {
    const workspace = path.join(root, 'ws-model');
    const out = await cli(['run', spec, '--workspace', workspace, '--model', 'claude-sonet-5-5']);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      'nightshift: --model: model id "claude-sonet-5-5" is not of the form provider:model (did you mean "anthropic:claude-sonnet-5-5"?).\n' +
        `  → e.g. --model ${DEFAULT_MODEL} (providers: anthropic, openai, openai-compatible; docs/models.md)\n`,
    );
    expect(count(out.stderr, 'claude-sonet-5-5')).toBe(1);
    expect(fs.existsSync(workspace)).toBe(false);
  });

  it('--lanes 99 gets the range and an example, not a schema message', async () => {
    const out = await cli(['run', spec, '--lanes', '99']);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      'nightshift: --lanes must be a whole number from 1 to 8, not "99".\n  → e.g. --lanes 2\n',
    );
  });

  it('a config file: each field once, for a person, and the key a misspelt one meant', async () => {
    const config = path.join(root, 'bad.config.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        run: { lanse: 2, lanes: 12, sandbox: { network: 'registry' } },
        worker: { concurency: 2 },
      }),
    );
    const out = await cli(['runs', '--config', config]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`Invalid configuration in ${config}:\n`);
    for (const line of [
      '  worker.concurency: unknown key (did you mean "concurrency"?)',
      '  run.lanes: must be at most 8, not 12',
      '  run.sandbox.network: must be true or false or one of "none", "registries", "open", not "registry" (did you mean "registries"?)',
      '  run.lanse: unknown key (did you mean "lanes"?)',
    ]) {
      expect(out.stderr).toContain(`${line}\n`);
    }
    expect(out.stderr).not.toMatch(/Too big|Invalid input|Unrecognized key/);
  });
});

describe('did you mean', () => {
  it('an unknown command or option names the one meant, in one line rather than the whole help', async () => {
    const command = await cli(['statsu']);
    expect(command.code).toBe(2);
    expect(command.stderr).toBe(
      "error: unknown command 'statsu'\n(Did you mean status?)\n(add --help for the commands and options)\n",
    );
    const option = await cli(['runs', '--jsno']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("error: unknown option '--jsno'\n(Did you mean --json?)");
  });
});

describe('models that are current', () => {
  it('run refuses a retired model before anything exists, naming the day and the replacement', async () => {
    const workspace = path.join(root, 'ws-retired');
    const out = await cli(['run', spec, '--workspace', workspace, '--model', 'anthropic:claude-sonnet-4-5']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      'anthropic:claude-sonnet-4-5 (initializer, generator, evaluator, planner) was retired on 2026-11-30 (its provider no longer answers it): use anthropic:claude-sonnet-5-5 instead (--model anthropic:claude-sonnet-5-5, or run.models in the config)',
    );
    expect(fs.existsSync(workspace)).toBe(false);
    expect(await runKeys()).toEqual([]);
  });

  it('init writes the current default, refuses a retired model and warns about one retiring soon', async () => {
    const written = await cli(['init', 'fresh.json']);
    expect(written.code, written.stderr).toBe(0);
    const sample = JSON.parse(fs.readFileSync(path.join(root, 'fresh.json'), 'utf8'));
    expect(sample.run.models.generator).toBe(DEFAULT_MODEL);

    const refused = await cli(['init', 'old.json', '--model', 'anthropic:claude-sonnet-4-5']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'Nothing was written: anthropic:claude-sonnet-4-5 was retired on 2026-11-30',
    );
    expect(refused.stderr).toContain('Run `nightshift init --model anthropic:claude-sonnet-5-5`.');
    expect(fs.existsSync(path.join(root, 'old.json'))).toBe(false);

    // Opus 4.5 retires on 2027-01-22: three weeks before, init still writes it and says what to move to.
    const soon = await runInProcess(
      [registerInitCommand],
      ['init', 'soon.json', '--model', 'anthropic:claude-opus-4-5'],
      {
        cwd: () => root,
        env: {},
        now: () => new Date('2027-01-01T12:00:00Z'),
      },
    );
    expect(soon.code).toBe(0);
    expect(soon.stderr).toBe(
      'warning: anthropic:claude-opus-4-5 retires on 2027-01-22 (in 21 days); a run still using it then fails: use anthropic:claude-opus-5-5 instead (--model anthropic:claude-opus-5-5, or run.models in the config)\n',
    );
  });
});
