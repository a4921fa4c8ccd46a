import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReport, registerDoctorCommand, runDoctor } from '../../../cli/doctor.js';
import { DEFAULT_MODEL } from '../../../orchestrator/config.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { cliEnv, runCli, runInProcess, tempDir, uniquePrefix } from './helpers.js';

// Real checks on this machine: Redis on 127.0.0.1:6379, the headless shell (or Chromium), git, bubblewrap.
let home: string;
let deadUrl: string;
/** The scripted model server as both APIs: its model list accepts only the good keys. */
let server: ModelServer;
/** This machine with a working Anthropic key and base URL (the scripted server). */
let machine: NodeJS.ProcessEnv;
const GOOD_ANTHROPIC_KEY = 'sk-ant-good-key-0000';
const GOOD_OPENAI_KEY = 'sk-oai-good-key-0000';
/**
 * A loopback port nothing listens on: 2, privileged and unused (port 1 is on fetch's list of ports it refuses to
 * try). A port freed after a listen could be handed to the next server a test starts (once the model server's
 * own: its URL then merged with the "dead" one, and one check fewer).
 */
const deadPort = 2;
const byName = (report: DoctorReport) =>
  Object.fromEntries(report.checks.map((check) => [check.name, check]));

beforeAll(async () => {
  home = tempDir('doctor');
  deadUrl = `redis://127.0.0.1:${deadPort}`;
  server = await startModelServer({
    policy: () => ({ text: 'OK' }),
    modelListKeys: [GOOD_ANTHROPIC_KEY, GOOD_OPENAI_KEY],
  });
  machine = {
    NIGHTSHIFT_HOME: home,
    PATH: process.env.PATH,
    ANTHROPIC_API_KEY: GOOD_ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
  };
});

afterAll(async () => {
  await server.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('doctor', () => {
  it('passes on this machine: every check ok, the Anthropic base URL asked with a real request', async () => {
    const before = server.modelLists.length;
    const report = await runDoctor({ cwd: home, env: machine });
    const checks = byName(report);
    expect(report.ok).toBe(true);
    expect(checks.redis).toMatchObject({ status: 'ok', detail: expect.stringMatching(/Redis \d+\./) });
    expect(checks.chromium).toMatchObject({ status: 'ok', detail: expect.stringContaining('Chromium') });
    expect(checks.git).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^git version \d/) });
    expect(checks.bubblewrap?.status).toBe('ok');
    // This machine has a writable memory controller (the box-memory suite requires one on CI too).
    expect(checks['box memory']).toMatchObject({
      status: 'ok',
      detail: '2048 MiB per box, all its processes together (memory cgroup, no swap)',
    });
    expect(checks['data dir']).toMatchObject({ status: 'ok', detail: `${home} is writable` });
    expect(checks['api keys']).toEqual({
      name: 'api keys',
      status: 'ok',
      detail: 'ANTHROPIC_API_KEY set and accepted',
      fix: null,
    });
    const uses = `${DEFAULT_MODEL} (initializer, generator, evaluator)`;
    expect(checks['model server']).toMatchObject({
      status: 'ok',
      detail: `${server.anthropicBaseURL} answers (HTTP 200) for ${uses}`,
    });
    expect(checks.models).toMatchObject({ status: 'ok', detail: expect.stringContaining(DEFAULT_MODEL) });
    expect(server.modelLists.slice(before)).toEqual([{ format: 'anthropic', withKey: true, accepted: true }]);
    expect(JSON.stringify(report)).not.toContain(GOOD_ANTHROPIC_KEY);
  });

  it('fails (exit 1) when a configured role has no key, or a key its server refuses', async () => {
    const noKey = await runInProcess([registerDoctorCommand], ['doctor', '--json'], {
      cwd: () => home,
      env: { ...machine, ANTHROPIC_API_KEY: '' },
    });
    expect(noKey.code).toBe(1);
    expect(byName(DoctorReport.parse(JSON.parse(noKey.stdout)))['api keys']).toMatchObject({
      status: 'fail',
      detail: `ANTHROPIC_API_KEY is not set (${DEFAULT_MODEL} (initializer, generator, evaluator) need it)`,
      fix: expect.stringContaining('`nightshift demo` needs no key'),
    });

    // Two providers: the OpenAI key is accepted, the Anthropic one refused by the model list (HTTP 401).
    const dir = tempDir('doctor-keys');
    try {
      fs.writeFileSync(
        path.join(dir, 'nightshift.config.json'),
        JSON.stringify({ run: { models: { generator: 'openai:gpt-5.1' } } }),
      );
      const refused = await runInProcess([registerDoctorCommand], ['doctor', '--json'], {
        cwd: () => dir,
        env: {
          ...machine,
          ANTHROPIC_API_KEY: 'sk-ant-revoked-0000',
          OPENAI_API_KEY: GOOD_OPENAI_KEY,
          OPENAI_BASE_URL: server.openaiBaseURL,
        },
      });
      expect(refused.code).toBe(1);
      const report = DoctorReport.parse(JSON.parse(refused.stdout));
      expect(byName(report)['api keys']).toMatchObject({
        status: 'fail',
        detail: `ANTHROPIC_API_KEY was refused by ${server.anthropicBaseURL} (HTTP 401) (${DEFAULT_MODEL} (initializer, evaluator)); OPENAI_API_KEY set and accepted`,
      });
      expect(
        report.checks.filter((check) => check.name === 'model server').map((check) => check.status),
      ).toEqual(['ok', 'ok']);
      expect(refused.stdout).not.toMatch(/sk-ant-revoked|sk-oai-good/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails an Anthropic base URL that does not answer, and one that is not the API', async () => {
    const down = await runDoctor({
      cwd: home,
      env: { ...machine, ANTHROPIC_BASE_URL: `http://127.0.0.1:${deadPort}` },
    });
    expect(down.ok).toBe(false);
    expect(byName(down)['model server']).toMatchObject({
      status: 'fail',
      detail: `http://127.0.0.1:${deadPort} does not answer (ECONNREFUSED) for ${DEFAULT_MODEL} (initializer, generator, evaluator)`,
      fix: expect.stringContaining('ANTHROPIC_BASE_URL'),
    });
    // The key cannot be judged by a server that did not answer: it is not called refused.
    expect(byName(down)['api keys']).toMatchObject({
      status: 'ok',
      detail: 'ANTHROPIC_API_KEY set (not checked: the server did not answer)',
    });
    const notApi = await runDoctor({
      cwd: home,
      env: { ...machine, ANTHROPIC_BASE_URL: `${server.url}/v1` },
    });
    expect(byName(notApi)['model server']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('answers, but not as the Anthropic API (HTTP 404'),
      fix: expect.stringContaining('without /v1'),
    });
  });

  it('fails a retired model and warns about one retiring within 30 days, naming the replacements', async () => {
    const dir = tempDir('doctor-retired');
    try {
      const config = {
        run: {
          models: {
            generator: 'anthropic:claude-sonnet-4-5-20250929',
            evaluator: 'anthropic:claude-haiku-4-5',
          },
          modelSettings: {
            'anthropic:claude-haiku-4-5': {
              retiresOn: '2027-01-10',
              replacement: 'anthropic:claude-sonnet-5-5',
            },
          },
        },
      };
      fs.writeFileSync(path.join(dir, 'nightshift.config.json'), JSON.stringify(config));
      const report = await runDoctor({ cwd: dir, env: machine, now: new Date('2026-12-20T00:00:00Z') });
      expect(report.ok).toBe(false);
      expect(byName(report).models).toMatchObject({
        status: 'fail',
        detail:
          'anthropic:claude-sonnet-4-5-20250929 (generator) was retired on 2026-11-30 (its provider no longer answers it): use anthropic:claude-sonnet-5-5 instead (--model anthropic:claude-sonnet-5-5, or run.models in the config); ' +
          'anthropic:claude-haiku-4-5 (evaluator) retires on 2027-01-10 (in 21 days); a run still using it then fails: use anthropic:claude-sonnet-5-5 instead (--model anthropic:claude-sonnet-5-5, or run.models in the config)',
      });
      const before = await runDoctor({ cwd: dir, env: machine, now: new Date('2026-11-01T00:00:00Z') });
      expect(byName(before).models?.status).toBe('warn');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks the Redis of REDIS_URL even when the config file is broken', async () => {
    const dir = tempDir('doctor-broken');
    try {
      fs.writeFileSync(path.join(dir, 'nightshift.config.json'), '{ "worker": { "concurrency": 0 } }');
      const report = await runDoctor({ cwd: dir, env: { ...machine, REDIS_URL: deadUrl } });
      expect(byName(report).config?.status).toBe('fail');
      expect(byName(report).redis).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining(`redis://127.0.0.1:${deadPort} does not answer`),
      });
      expect(byName(report).models).toMatchObject({
        status: 'warn',
        detail: 'not checked: the config is invalid (see above)',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails Redis with how to fix it when nothing answers and redis-server is missing', async () => {
    const report = await runDoctor({
      cwd: home,
      env: machine,
      defaultRedisUrl: deadUrl,
      redisServerPath: '/nonexistent/redis-server',
    });
    expect(byName(report).redis).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('apt-get install redis-server'),
    });
    expect(report.ok).toBe(false);
  });

  it('warns that a private redis-server will be started when only the binary is there', async () => {
    const report = await runDoctor({ cwd: home, env: machine, defaultRedisUrl: deadUrl });
    expect(byName(report).redis).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('will start a private redis-server'),
    });
  });

  it('reports an invalid config as a failure and still runs the other checks', async () => {
    const dir = tempDir('doctor-config');
    try {
      fs.writeFileSync(path.join(dir, 'nightshift.config.json'), JSON.stringify({ keyPrefix: 'no-colon' }));
      const out = await runInProcess([registerDoctorCommand], ['doctor', '--json'], {
        cwd: () => dir,
        env: machine,
      });
      const report = JSON.parse(out.stdout) as DoctorReport;
      expect(byName(report).config).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('keyPrefix'),
      });
      expect(report.checks).toHaveLength(9);
      expect(out.code).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints one line per check and the fix under a failure', async () => {
    const out = await runInProcess([registerDoctorCommand], ['doctor'], {
      cwd: () => home,
      env: { ...machine, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: 'sk-abcdefgh12345678' },
    });
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^ok\s+redis\s+redis:\/\/127\.0\.0\.1:6379/m);
    expect(out.stdout).toMatch(/^FAIL\s+api keys\s+ANTHROPIC_API_KEY is not set/m);
    expect(out.stdout).toMatch(/→ Export a valid key in the variable named/);
    expect(out.stdout).not.toContain('sk-abcdefgh12345678');
    expect(out.stdout).toMatch(/1 failed, 0 warning\(s\), 10 ok/);
  });
});

describe('doctor through the CLI: OpenAI-compatible model servers', () => {
  it('reports a base URL that does not answer, or answers without the API, with a fix; one that answers is ok', async () => {
    const server = await startModelServer({ policy: () => ({ text: 'Noted.' }) });
    const dir = tempDir('doctor-servers');
    try {
      const config = {
        run: {
          models: {
            initializer: 'openai-compatible:live',
            generator: 'openai-compatible:dead',
            evaluator: 'openai-compatible:nov1',
          },
        },
        openaiCompatible: {
          live: { baseURL: server.openaiBaseURL },
          dead: { baseURL: `http://127.0.0.1:${deadPort}/v1` },
          // The server's root, without the /v1 path: it answers, but 404 for /models.
          nov1: { baseURL: server.url },
        },
      };
      fs.writeFileSync(path.join(dir, 'nightshift.config.json'), JSON.stringify(config));
      const env = cliEnv(home, uniquePrefix());
      const json = await runCli(['doctor', '--json'], { env, cwd: dir });
      expect(json.code, json.stderr).toBe(1);
      const servers = DoctorReport.parse(JSON.parse(json.stdout)).checks.filter(
        (check) => check.name === 'model server',
      );
      expect(servers).toHaveLength(3);
      const of = (name: string) =>
        servers.find((check) => check.detail.includes(`openai-compatible:${name}`));
      expect(of('live')).toMatchObject({
        status: 'ok',
        detail: `${server.openaiBaseURL} answers (HTTP 200) for openai-compatible:live (initializer)`,
        fix: null,
      });
      expect(of('dead')).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/does not answer \(ECONNREFUSED\)/),
        fix: expect.stringMatching(/Start the server .* or fix its base URL/),
      });
      expect(of('nov1')).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('not as an OpenAI-compatible API (HTTP 404'),
        fix: expect.stringContaining('must include the API path'),
      });

      const text = await runCli(['doctor'], { env, cwd: dir });
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/^ok\s+model server\s+\S+ answers \(HTTP 200\)/m);
      expect(text.stdout).toMatch(/^FAIL\s+model server\s+http:\/\/127\.0\.0\.1:\d+\/v1 does not answer/m);
      expect(text.stdout).toMatch(/→ Start the server/);
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
