/**
 * After a whole run through the CLI with recognisable fake API keys, the keys appear nowhere: the
 * CLI's stderr (debug logs), every file in the data dir (transcripts, evidence, backups), every value
 * under the run's Redis prefix, the dashboard's API responses, the workspace and its whole git history.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import demoPolicy from '../../../testkit/policies/demo.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { CLI_ENTRY, cliEnv, runCli, tempDir } from '../cli/helpers.js';
import { deleteKeys, REDIS_URL, shortTodoSpec } from '../runs/harness.js';

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

/** Where each key was found ('' when nowhere), in `text` labelled `where`. */
function leaks(where: string, text: string): string[] {
  return KEYS.filter((key) => text.includes(key)).map((key) => `${key.slice(0, 12)}… in ${where}`);
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => fs.lstatSync(file).isFile());
}

function scanFiles(dir: string): { leaks: string[]; files: number } {
  const found: string[] = [];
  const files = filesUnder(dir);
  for (const file of files) found.push(...leaks(file, fs.readFileSync(file).toString('latin1')));
  return { leaks: found, files: files.length };
}

async function redisDump(): Promise<{ text: string; keys: number }> {
  const parts: string[] = [];
  let cursor = '0';
  let keys = 0;
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of batch) {
      keys++;
      const type = await redis.type(key);
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'hash'
            ? await redis.hgetall(key)
            : type === 'list'
              ? await redis.lrange(key, 0, -1)
              : type === 'set'
                ? await redis.smembers(key)
                : type === 'zset'
                  ? await redis.zrange(key, 0, -1, 'WITHSCORES')
                  : type === 'stream'
                    ? await redis.xrange(key, '-', '+')
                    : `(${type})`;
      parts.push(`${key} ${JSON.stringify(value)}`);
    }
  } while (cursor !== '0');
  return { text: parts.join('\n'), keys };
}

async function startDashboard(env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [CLI_ENTRY, 'dashboard', '--port', '0', '--json'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  dashboard = child;
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`dashboard exited ${code}: ${out}`)));
  });
}

async function dashboardText(url: string, runId: string): Promise<{ text: string; responses: number }> {
  const paths = [
    `/api/runs`,
    `/api/runs/${runId}`,
    `/api/runs/${runId}/features`,
    `/api/runs/${runId}/sessions`,
  ];
  const sessions = (await (await fetch(`${url}/api/runs/${runId}/sessions`)).json()) as unknown;
  const seqs = [...JSON.stringify(sessions).matchAll(/"seq":(\d+)/g)].map((match) => match[1]);
  for (const seq of new Set(seqs)) paths.push(`/api/runs/${runId}/sessions/${seq}/transcript`);
  const texts: string[] = [];
  for (const route of paths) {
    const response = await fetch(`${url}${route}`);
    const body = await response.text();
    // A regression session whose recorded checks all replayed green asked no model: it has no transcript.
    const noTranscript = response.status === 404 && /has no transcript/.test(body);
    if (!noTranscript) expect(response.status, route).toBe(200);
    texts.push(body);
  }
  // The SSE stream replays the run's events first: read it for a moment.
  const controller = new AbortController();
  const sse = await fetch(`${url}/api/runs/${runId}/events`, { signal: controller.signal });
  const reader = sse.body?.getReader();
  const stopAt = Date.now() + 1_500;
  while (reader && Date.now() < stopAt) {
    const chunk = await Promise.race([
      reader.read(),
      new Promise<undefined>((resolve) => setTimeout(resolve, 300)),
    ]);
    if (chunk?.value) texts.push(Buffer.from(chunk.value).toString('utf8'));
    if (chunk?.done) break;
  }
  controller.abort();
  return { text: texts.join('\n'), responses: paths.length + 1 };
}

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
    const data = scanFiles(home);
    found.push(...data.leaks);
    const dump = await redisDump();
    found.push(...leaks('Redis', dump.text));
    const api = await dashboardText(await startDashboard(env), status.id);
    found.push(...leaks('dashboard API', api.text));
    const files = scanFiles(workspace);
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
    expect(scanFiles(home).leaks).toHaveLength(1);
    console.log(
      `secrets: searched ${out.stderr.length} bytes of CLI stderr, ${data.files} data-dir files, ${dump.keys} Redis keys, ` +
        `${api.responses} dashboard responses, ${files.files} workspace files, ${history.length} bytes of git history: 0 leaks`,
    );
  }, 600_000);
});
