/**
 * After a whole run through the CLI with recognisable fake API keys, the keys appear nowhere: the
 * CLI's stderr (debug logs), every file in the data dir (transcripts, evidence, backups), every value
 * under the run's Redis prefix, the dashboard's API responses, the workspace and its whole git history.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import demoPolicy from '../../../testkit/policies/demo.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { cliEnv, runCli, tempDir } from '../cli/helpers.js';
import { deleteKeys, REDIS_URL, shortTodoSpec } from '../runs/harness.js';
import { dashboardText, filesUnder, leaksIn, redisDump, scanFiles, startDashboard } from './leak-scan.js';

const ANTHROPIC_KEY = `sk-ant-api03-LEAKCANARY${randomBytes(12).toString('hex')}`;
const OPENAI_KEY = `sk-proj-LEAKCANARY${randomBytes(12).toString('hex')}`;
const KEYS = [ANTHROPIC_KEY, OPENAI_KEY];
const prefix = `nssec${randomBytes(3).toString('hex')}:`;

let root: string;
let home: string;
let server: ModelServer;
let redis: Redis;
let dashboard: ChildProcess | undefined;

beforeAll(async () => {
  root = fs.realpathSync(tempDir('secrets'));
  home = path.join(root, 'home');
  server = await startModelServer({ policy: demoPolicy });
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  dashboard?.kill('SIGTERM');
  await server.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
  fs.rmSync(root, { recursive: true, force: true });
});

const leaks = (where: string, text: string) => leaksIn(KEYS, where, text);
const scan = (dir: string) => scanFiles(KEYS, dir);

describe('secrets after a whole run', () => {
  it('the API keys appear nowhere: logs, data dir, Redis, dashboard API, workspace and its history', async () => {
    const workspace = path.join(root, 'todo');
    const env = cliEnv(home, prefix, {
      REDIS_URL,
      NIGHTSHIFT_LOG_LEVEL: 'debug',
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      OPENAI_API_KEY: OPENAI_KEY,
    });
    const out = await runCli(
      [
        'run',
        // Three features: every role and a regression sweep, in a third of the full demo's time.
        shortTodoSpec(root, 3),
        '--workspace',
        workspace,
        '--model',
        'anthropic:scripted',
        '--json',
      ],
      { env, cwd: root },
    );
    expect(out.code, out.stderr.slice(-2000)).toBe(0);
    const status = JSON.parse(out.stdout) as { id: string; status: string };
    expect(status.status).toBe('done');

    const found: string[] = [];
    found.push(...leaks('CLI stdout', out.stdout), ...leaks('CLI stderr (debug logs)', out.stderr));
    const data = scan(home);
    found.push(...data.leaks);
    const dump = await redisDump(redis, prefix);
    found.push(...leaks('Redis', dump.text));
    const started = startDashboard(env, root);
    dashboard = started.child;
    const api = await dashboardText(await started.url, status.id);
    found.push(...leaks('dashboard API', api.text));
    const files = scan(workspace);
    found.push(...files.leaks);
    const history = execFileSync('git', ['log', '-p', '--all', '--format=%H %an %s%n%b'], {
      cwd: workspace,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    found.push(...leaks('git log -p --all', history));
    expect(found).toEqual([]);

    // The places searched are the real ones (this test could fail): they hold the run and its work.
    expect(out.stderr.length).toBeGreaterThan(1_000);
    expect(data.files).toBeGreaterThan(10);
    expect(filesUnder(home).some((file) => file.endsWith('.jsonl'))).toBe(true);
    expect(dump.keys).toBeGreaterThan(3);
    expect(dump.text).toContain(status.id);
    expect(api.text).toContain('F-001');
    expect(history).toContain('feature_list.json');
    // And the scanner finds a key where one is.
    fs.writeFileSync(path.join(home, 'planted.txt'), `x${ANTHROPIC_KEY}x`);
    expect(scan(home).leaks).toHaveLength(1);
    console.log(
      `secrets: searched ${out.stderr.length} bytes of CLI stderr, ${data.files} data-dir files, ${dump.keys} Redis keys, ` +
        `${api.responses} dashboard responses, ${files.files} workspace files, ${history.length} bytes of git history: 0 leaks`,
    );
  }, 600_000);
});
