/**
 * Bad input through the real CLI (child processes): each case ends with a clear message, exit code 2,
 * and nothing written (no key under the test's Redis prefix, the workspace untouched — not even `git init`).
 * Models are checked before anything is written (preflight): an unknown provider, a missing key, a wrong
 * key or an unknown model is refused the same way. Cases about the spec and the workspace carry a
 * placeholder key and skip the preflight request, so they reach the check they are about.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SPEC_BYTES } from '../../../orchestrator/start-run.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { cliEnv, runCli, tempDir } from '../cli/helpers.js';
import { deleteKeys, REDIS_URL } from '../runs/harness.js';

const prefix = `nsbad${randomBytes(3).toString('hex')}:`;
let root: string;
let home: string;
let redis: Redis;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  root = fs.realpathSync(tempDir('bad-input'));
  home = path.join(root, 'home');
  redis = new Redis(REDIS_URL);
  env = cliEnv(home, prefix, {
    REDIS_URL,
    ANTHROPIC_API_KEY: 'sk-ant-placeholder-for-input-checks',
    NIGHTSHIFT_PREFLIGHT_REQUEST: '0',
  });
});
afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
  fs.rmSync(root, { recursive: true, force: true });
});

/**
 * Keys under the prefix, except BullMQ's queue metadata (`bull:<queue>:meta`), which the CLI writes when it
 * opens its queues, before it looks at the input: bookkeeping, no run.
 */
async function keysUnderPrefix(): Promise<string[]> {
  return (await redis.keys(`${prefix}*`)).filter((key) => !/^[^:]+:bull:[^:]+:meta$/.test(key));
}

function file(name: string, content: string | Buffer): string {
  const target = path.join(root, name);
  fs.writeFileSync(target, content);
  return target;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: dir,
    encoding: 'utf8',
  });
}

/** A snapshot of a directory: every file's path and content, and git's HEAD and status when a repo. */
function snapshot(dir: string): string {
  if (!fs.existsSync(dir)) return '(absent)';
  const files = fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => !name.startsWith('.git/') && fs.statSync(path.join(dir, name)).isFile())
    .sort()
    .map((name) => `${name}:${fs.readFileSync(path.join(dir, name), 'base64')}`);
  const repo = fs.existsSync(path.join(dir, '.git'))
    ? `${git(dir, 'rev-parse', 'HEAD')}${git(dir, 'status', '--porcelain')}${git(dir, 'rev-list', '--all', '--count')}`
    : 'no git';
  return `${files.join('\n')}\n${repo}`;
}

async function expectRefused(
  args: string[],
  message: RegExp,
  options: { workspace?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const workspace = options.workspace ?? path.join(root, `ws-${randomBytes(3).toString('hex')}`);
  const before = snapshot(workspace);
  const out = await runCli(['run', ...args, '--workspace', workspace, '--detach'], {
    env: options.env ?? env,
    cwd: root,
  });
  expect(out.code, out.stderr).toBe(2);
  expect(out.stderr).toMatch(message);
  expect(out.stdout).toBe('');
  expect(await keysUnderPrefix()).toEqual([]);
  expect(snapshot(workspace)).toBe(before);
  return out.stderr;
}

describe('bad input to `nightshift run`', () => {
  it('an empty spec', async () => {
    await expectRefused([file('empty.md', '  \n\n')], /spec .*empty\.md is empty/);
  });

  it(`a huge spec (5 MB; the limit is ${MAX_SPEC_BYTES} bytes)`, async () => {
    await expectRefused(
      [file('huge.md', '# spec\n'.padEnd(5 * 1024 * 1024, 'x'))],
      /5242880 bytes; the limit is 524288/,
    );
  });

  it('a binary spec', async () => {
    await expectRefused(
      [file('binary.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]))],
      /binary file/,
    );
  });

  it('a non-UTF-8 spec (Latin-1)', async () => {
    await expectRefused([file('latin1.md', Buffer.from('# Caf\xe9 app\n', 'latin1'))], /not valid UTF-8/);
  });

  it('a missing spec', async () => {
    await expectRefused([path.join(root, 'nope.md')], /does not exist/);
  });

  it('an invalid config file: each bad field named', async () => {
    const config = file(
      'bad.config.json',
      JSON.stringify({
        worker: { concurrency: 0 },
        run: { budgets: { maxCostUsd: -5 } },
        dashboard: { port: 'x' },
      }),
    );
    const stderr = await expectRefused(
      [file('ok1.md', '# A todo app\n'), '--config', config],
      /Invalid configuration/,
    );
    expect(stderr).toMatch(/worker\.concurrency/);
    expect(stderr).toMatch(/run\.budgets\.maxCostUsd/);
    expect(stderr).toMatch(/dashboard\.port/);
  });

  it('a workspace that is not a git repository and not empty', async () => {
    const workspace = path.join(root, 'not-git');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'mine\n');
    await expectRefused([file('ok2.md', '# A todo app\n')], /not empty and not a git repository/, {
      workspace,
    });
    expect(fs.existsSync(path.join(workspace, '.git'))).toBe(false);
  });

  it('a workspace with uncommitted changes', async () => {
    const workspace = path.join(root, 'dirty');
    fs.mkdirSync(workspace);
    git(workspace, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'one\n');
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-qm', 'one');
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'two\n');
    await expectRefused([file('ok3.md', '# A todo app\n')], /uncommitted changes/, { workspace });
  });

  it('a workspace whose committed feature_list.json is corrupted (adopting it)', async () => {
    const workspace = path.join(root, 'corrupt');
    fs.mkdirSync(workspace);
    git(workspace, 'init', '-q', '-b', 'main');
    fs.writeFileSync(
      path.join(workspace, 'feature_list.json'),
      '[{"description": "Add a todo", "passes": fal',
    );
    fs.writeFileSync(path.join(workspace, 'init.sh'), '#!/bin/sh\n');
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-qm', 'quickstart output');
    await expectRefused([file('ok4.md', '# A todo app\n')], /cannot be resumed[\s\S]*feature_list\.json/, {
      workspace,
    });
  });

  it('Redis unreachable', async () => {
    await expectRefused(
      [file('ok5.md', '# A todo app\n')],
      /Redis at redis:\/\/127\.0\.0\.1:1 does not answer/,
      {
        env: { ...env, REDIS_URL: 'redis://127.0.0.1:1' },
      },
    );
  });
});

describe('missing Chromium', () => {
  it('doctor fails naming Chromium and how to fix it', async () => {
    const out = await runCli(['doctor', '--json'], {
      env: { ...env, NIGHTSHIFT_CHROMIUM_PATH: '/nonexistent/chromium' },
      cwd: root,
    });
    expect(out.code).not.toBe(0);
    const report = JSON.parse(out.stdout) as {
      checks: Array<{ name: string; status: string; detail: string }>;
    };
    const chromium = report.checks.find((check) => check.name === 'chromium');
    expect(chromium?.status).toBe('fail');
    expect(JSON.stringify(chromium)).toMatch(/\/nonexistent\/chromium/);
    expect(await keysUnderPrefix()).toEqual([]);
  });
});

describe('a new user without a working model', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer({ policy: () => ({ text: 'OK' }) });
  });
  afterAll(() => server.close());

  /** The user's environment: no key, the preflight request on (the default). */
  const fresh = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const plain: NodeJS.ProcessEnv = { ...env, ...extra };
    delete plain.NIGHTSHIFT_PREFLIGHT_REQUEST;
    if (!('ANTHROPIC_API_KEY' in extra)) delete plain.ANTHROPIC_API_KEY;
    delete plain.OPENAI_API_KEY;
    return plain;
  };

  it('`run spec.md --model foo:bar`: the unknown provider is named, and how to write a model id', async () => {
    const stderr = await expectRefused(
      [file('m1.md', '# A todo app\n'), '--model', 'foo:bar'],
      /unknown provider "foo"/,
      {
        env: fresh(),
      },
    );
    expect(stderr).toMatch(/anthropic, openai, openai-compatible/);
  });

  it('`run --detach` without a key: exit 2 naming the variable, no run, workspace untouched', async () => {
    const stderr = await expectRefused([file('m2.md', '# A todo app\n')], /ANTHROPIC_API_KEY is not set/, {
      env: fresh(),
    });
    expect(stderr).toMatch(/initializer, generator, evaluator/);
  });

  it('`run` (following) without a key: exit 2 too, before any git init', async () => {
    const workspace = path.join(root, 'follow-no-key');
    const out = await runCli(['run', file('m3.md', '# A todo app\n'), '--workspace', workspace], {
      env: fresh(),
      cwd: root,
    });
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toMatch(/ANTHROPIC_API_KEY is not set/);
    expect(fs.existsSync(workspace)).toBe(false);
    expect(await keysUnderPrefix()).toEqual([]);
  });

  it('an unknown model is refused by its one test request, with the provider message and the base URL', async () => {
    server.injectFaults([{ kind: 'model_not_found' }]);
    const before = server.requests.length;
    const stderr = await expectRefused(
      [file('m4.md', '# A todo app\n'), '--model', 'anthropic:claude-nope'],
      /not found \(404 model: claude-nope\); check the model name and the base URL/,
      {
        env: fresh({
          ANTHROPIC_API_KEY: 'sk-ant-some-key-0000000000',
          ANTHROPIC_BASE_URL: server.anthropicBaseURL,
        }),
      },
    );
    expect(stderr).not.toMatch(/sk-ant-some-key/);
    expect(server.requests.length - before).toBe(1);
  });
});

describe('a wrong API key', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer({ policy: () => ({ fault: { kind: 'auth_error' } }) });
  });
  afterAll(() => server.close());

  const wrongKey = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
    const plain: NodeJS.ProcessEnv = {
      ...env,
      ANTHROPIC_API_KEY: 'sk-ant-wrong-000000000000',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      ...extra,
    };
    if (!('NIGHTSHIFT_PREFLIGHT_REQUEST' in extra)) delete plain.NIGHTSHIFT_PREFLIGHT_REQUEST;
    return plain;
  };

  it('is refused before the run exists by the preflight request: exit 2 naming the key, one request', async () => {
    const before = server.requests.length;
    const stderr = await expectRefused(
      [file('ok6.md', '# A todo app\n'), '--model', 'anthropic:scripted'],
      /authentication failed .*check ANTHROPIC_API_KEY/,
      { env: wrongKey() },
    );
    expect(stderr).not.toMatch(/sk-ant-wrong/);
    expect(server.requests.length - before).toBe(1);
  });

  it('with the preflight request off, fails the run at its first request with a reason naming the key', async () => {
    const before = server.requests.length;
    const workspace = path.join(root, 'wrong-key');
    const out = await runCli(
      [
        'run',
        file('ok7.md', '# A todo app\n'),
        '--workspace',
        workspace,
        '--json',
        '--model',
        'anthropic:scripted',
      ],
      { env: wrongKey({ NIGHTSHIFT_PREFLIGHT_REQUEST: '0' }), cwd: root },
    );
    const status = JSON.parse(out.stdout) as { status: string; id: string };
    expect(out.code, out.stderr).toBe(1);
    expect(status.status).toBe('failed');
    const record = await redis.get(`${prefix}run:{${status.id}}`);
    expect(record ?? '').toMatch(
      /provider error: anthropic:scripted: authentication failed .*check ANTHROPIC_API_KEY/,
    );
    expect(record ?? '').not.toMatch(/sk-ant-wrong/);
    expect(out.stderr).not.toMatch(/sk-ant-wrong/);
    // A bad key will not pass by itself: the run fails after one session and one request, not two.
    expect(server.requests.length - before).toBe(1);
    await deleteKeys(redis, prefix);
  }, 120_000);
});
