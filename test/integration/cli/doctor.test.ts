import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReport, registerDoctorCommand, runDoctor } from '../../../cli/doctor.js';
import { startModelServer } from '../../../testkit/server.js';
import { cliEnv, runCli, runInProcess, tempDir, uniquePrefix } from './helpers.js';

// Real checks on this machine: Redis on 127.0.0.1:6379, /usr/bin/chromium, git, bubblewrap.
let home: string;
let deadUrl: string;
/** A loopback port nothing listens on. */
let deadPort: number;
const byName = (report: DoctorReport) =>
  Object.fromEntries(report.checks.map((check) => [check.name, check]));

beforeAll(async () => {
  home = tempDir('doctor');
  const port = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
  deadPort = port;
  deadUrl = `redis://127.0.0.1:${port}`;
});

afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

describe('doctor', () => {
  it('passes on this machine, with a warning (not a failure) when no API key is set', async () => {
    const report = await runDoctor({ cwd: home, env: { NIGHTSHIFT_HOME: home, PATH: process.env.PATH } });
    const checks = byName(report);
    expect(report.ok).toBe(true);
    expect(checks.redis).toMatchObject({ status: 'ok', detail: expect.stringMatching(/Redis \d+\./) });
    expect(checks.chromium).toMatchObject({ status: 'ok', detail: expect.stringContaining('Chromium') });
    expect(checks.git).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^git version \d/) });
    expect(checks.bubblewrap?.status).toBe('ok');
    expect(checks['data dir']).toMatchObject({ status: 'ok', detail: `${home} is writable` });
    expect(checks['api keys']).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining(
        'ANTHROPIC_API_KEY not set, OPENAI_API_KEY not set (the demo needs none)',
      ),
    });
  });

  it('fails Redis with how to fix it when nothing answers and redis-server is missing', async () => {
    const report = await runDoctor({
      cwd: home,
      env: { NIGHTSHIFT_HOME: home },
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
    const report = await runDoctor({ cwd: home, env: { NIGHTSHIFT_HOME: home }, defaultRedisUrl: deadUrl });
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
        env: { NIGHTSHIFT_HOME: home, PATH: process.env.PATH },
      });
      const report = JSON.parse(out.stdout) as DoctorReport;
      expect(byName(report).config).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('keyPrefix'),
      });
      expect(report.checks).toHaveLength(8);
      expect(out.code).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints one line per check and the fix under a warning', async () => {
    const out = await runInProcess([registerDoctorCommand], ['doctor'], {
      cwd: () => home,
      env: { NIGHTSHIFT_HOME: home, PATH: process.env.PATH, OPENAI_API_KEY: 'sk-abcdefgh12345678' },
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^ok\s+redis\s+redis:\/\/127\.0\.0\.1:6379/m);
    expect(out.stdout).toMatch(/^warn\s+api keys\s+ANTHROPIC_API_KEY not set, OPENAI_API_KEY set;/m);
    expect(out.stdout).toMatch(/→ Export ANTHROPIC_API_KEY/);
    expect(out.stdout).not.toContain('sk-abcdefgh12345678');
    expect(out.stdout).toMatch(/0 failed, 1 warning\(s\), 7 ok/);
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
        detail: `${server.openaiBaseURL} answers (HTTP 200) for openai-compatible:live`,
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
