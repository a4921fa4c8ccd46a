/**
 * Issue 24, "credentials never leave the harness": a whole run through `nightshift run --repo
 * http://user:token@127.0.0.1:<port>/app.git` against a loopback git smart-HTTP server that requires basic
 * authentication (git http-backend), so the clone, fetches and pushes only work with the credential. The generator
 * first probes the repository from its box (`cat .git/config`, `git config --list`, `git remote -v`, `env`). After
 * the run the token (and its basic-auth form) is nowhere: no `.git/config` (start clone, worker clone, backup
 * mirror), no transcript, log file, event, Redis value, API answer, CLI output (`run`, `status`, `status --json`),
 * model request (the probe's result included) or process argv — except the harness's own credential file (0600).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import demoPolicy, { roleOf } from '../../../testkit/policies/demo.js';
import { generatorScript } from '../../../testkit/policies/generator.js';
import { runScript } from '../../../testkit/policies/script.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer, Policy } from '../../../testkit/types.js';
import { CLI_ENTRY, cliEnv, runCli, tempDir } from '../cli/helpers.js';
import { deleteKeys, REDIS_URL, shortTodoSpec } from '../runs/harness.js';
import { type GitHttpServer, startGitHttpServer } from './git-http-server.js';
import { dashboardText, filesUnder, leaksIn, redisDump, scanFiles, startDashboard } from './leak-scan.js';

const USER = 'ci-bot';
const TOKEN = `ghp_LEAKCANARY${randomBytes(12).toString('hex')}`;
const BASIC = Buffer.from(`${USER}:${TOKEN}`).toString('base64');
const NEEDLES = [TOKEN, BASIC];
const API_KEY = `sk-ant-api03-LEAKCANARY${randomBytes(12).toString('hex')}`;
const prefix = `nscred${randomBytes(3).toString('hex')}:`;

/** What the generator runs in its box before its work. */
const PROBE =
  'echo "== .git/config"; cat .git/config; echo "== git config"; git config --list --show-origin; ' +
  'echo "== remotes"; git remote -v; echo "== env"; env | sort';

/** The demo's model, whose generator first looks at the repository and its environment. */
const probingPolicy: Policy = (conversation) =>
  roleOf(conversation) === 'generator'
    ? runScript(conversation, (io) => {
        io.call('bash', { command: PROBE }, 'Looking at the repository and the environment first.');
        generatorScript(io);
      })
    : demoPolicy(conversation);

let root: string;
let home: string;
let model: ModelServer;
let git: GitHttpServer;
let redis: Redis;
let dashboard: ChildProcess | undefined;

beforeAll(async () => {
  root = fs.realpathSync(tempDir('credentials'));
  home = path.join(root, 'home');
  model = await startModelServer({ policy: probingPolicy });
  git = await startGitHttpServer(path.join(root, 'served'), 'app', { username: USER, password: TOKEN });
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  dashboard?.kill('SIGTERM');
  await model?.close();
  await git?.close();
  await deleteKeys(redis, prefix);
  redis?.disconnect();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The parent pid of a process (field 4 of /proc/<pid>/stat, after the parenthesised name). */
function parentOf(pid: string): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Reads every process's argv every 25 ms while it runs; keeps those holding a needle (with their parent). */
function argvWatch(): { stop: () => Array<{ pid: number; parent: number; argv: string }> } {
  const seen = new Map<number, { parent: number; argv: string }>();
  const timer = setInterval(() => {
    for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let argv: string;
      try {
        argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
      } catch {
        continue;
      }
      if (!NEEDLES.some((needle) => argv.includes(needle))) continue;
      try {
        seen.set(Number(pid), { parent: parentOf(pid), argv: argv.replaceAll(TOKEN, '<TOKEN>') });
      } catch {
        // Gone meanwhile.
      }
    }
  }, 25);
  return {
    stop: () => {
      clearInterval(timer);
      return [...seen].map(([pid, seenAs]) => ({ pid, ...seenAs }));
    },
  };
}

/** Runs the CLI; once `run` printed its workspace line (the run exists), reads the CLI's own argv. */
function runWatched(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let argvWhileRunning: string | undefined;
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (argvWhileRunning === undefined && /run \S+: workspace /.test(stderr)) {
      argvWhileRunning = fs.readFileSync(`/proc/${child.pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
    }
  });
  return new Promise<{
    code: number;
    stdout: string;
    stderr: string;
    pid: number;
    argvWhileRunning?: string;
  }>((resolve) =>
    child.on('close', (code) =>
      resolve({ code: code ?? -1, stdout, stderr, pid: child.pid ?? -1, argvWhileRunning }),
    ),
  );
}

describe('a remote with credentials in its URL', () => {
  it('works (clone, fetch, push) and the credential is in no config, record, view, request or argv', async () => {
    const repoUrl = git.url.replace('http://', `http://${USER}:${TOKEN}@`);
    const masked = git.url.replace('http://', 'http://***@');
    const env = cliEnv(home, prefix, {
      REDIS_URL,
      NIGHTSHIFT_LOG_LEVEL: 'debug',
      ANTHROPIC_API_KEY: API_KEY,
      ANTHROPIC_BASE_URL: model.anthropicBaseURL,
    });
    const watch = argvWatch();
    const out = await runWatched(
      ['run', shortTodoSpec(root, 1), '--repo', repoUrl, '--model', 'anthropic:scripted', '--json'],
      env,
    );
    const argvLeaks = watch.stop();
    expect(out.code, out.stderr.slice(-3000)).toBe(0);
    const status = JSON.parse(out.stdout) as { id: string; status: string; workspace: string };
    expect(status.status).toBe('done');
    expect(status.workspace).toBe(`${masked}#main`);

    // It worked through the credential: every request to the server carried it, and the work is on the remote.
    expect(git.requests.length).toBeGreaterThan(4);
    expect(git.requests.filter((request) => !request.authorised)).toEqual([]);
    expect(git.requests.some((request) => request.url.includes('git-receive-pack'))).toBe(true);
    const remoteLog = execFileSync('git', ['--git-dir', git.bareDir, 'log', '--format=%s', 'main'], {
      encoding: 'utf8',
    });
    expect(remoteLog).toMatch(/F-001/);

    const found: string[] = [];
    found.push(...leaksIn(NEEDLES, 'run stdout', out.stdout), ...leaksIn(NEEDLES, 'run stderr', out.stderr));
    // The harness keeps the credential in one file of its data dir, readable by the operator only.
    const credentialFile = path.join(home, 'credentials', 'git.json');
    expect(fs.statSync(credentialFile).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(credentialFile, 'utf8')).toContain(TOKEN);
    const data = scanFiles(NEEDLES, home);
    found.push(...data.leaks.filter((leak) => !leak.endsWith(`in ${credentialFile}`)));
    const configs = filesUnder(home).filter((file) => /(^|\/)(\.git\/config|[^/]+\.git\/config)$/.test(file));
    // The backup mirror and housekeeping's scratch repository (which deleted the lane branches) stay; the finished
    // run's clones were tidied away with it. The scan above went through every file of them before.
    expect(configs.length).toBeGreaterThanOrEqual(2);
    expect(configs.some((file) => file.includes(`${path.sep}housekeeping${path.sep}`))).toBe(true);
    for (const config of configs) expect(fs.readFileSync(config, 'utf8')).not.toContain('***');
    const dump = await redisDump(redis, prefix);
    found.push(...leaksIn(NEEDLES, 'Redis', dump.text));
    const started = startDashboard(env, root);
    dashboard = started.child;
    const api = await dashboardText(await started.url, status.id);
    found.push(...leaksIn(NEEDLES, 'dashboard API', api.text));
    const statusText = await runCli(['status', status.id], { env, cwd: root });
    const statusJson = await runCli(['status', status.id, '--json'], { env, cwd: root });
    found.push(...leaksIn(NEEDLES, 'status', statusText.stdout + statusText.stderr));
    found.push(...leaksIn(NEEDLES, 'status --json', statusJson.stdout + statusJson.stderr));
    const bodies = model.requests.map((request) => request.body).join('\n');
    found.push(...leaksIn([...NEEDLES, API_KEY], 'model requests', bodies));
    const history = execFileSync('git', ['--git-dir', git.bareDir, 'log', '-p', '--all'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    found.push(...leaksIn(NEEDLES, 'the remote history', history));
    expect(found).toEqual([]);
    // Only the CLI the test started (the operator's own command line) held it, before it parsed its arguments.
    const cli = (seen: { pid: number; parent: number }) =>
      seen.pid === out.pid || seen.parent === process.pid;
    expect(
      argvLeaks.filter((seen) => !cli(seen)),
      `the run CLI was ${out.pid}`,
    ).toEqual([]);
    expect(out.argvWhileRunning).toBeDefined();
    expect(out.argvWhileRunning).not.toContain(TOKEN);

    // What was searched is real (the test could fail): the masked URL shows, the probe ran in the box.
    expect(statusText.stdout).toContain(masked);
    expect(JSON.parse(statusJson.stdout).workspace).toBe(`${masked}#main`);
    expect(api.text).toContain(masked);
    expect(out.stderr).toContain(masked);
    expect(bodies).toContain('== .git/config');
    expect(bodies).toContain(`url = ${git.url}`);
    expect(bodies).not.toMatch(/GIT_CONFIG_|extraheader/i);
    expect(data.files).toBeGreaterThan(10);
    expect(dump.text).toContain(status.id);
    console.log(
      `credentials: ${git.requests.length} git requests (all authorised); searched ${data.files} data-dir files ` +
        `(${configs.length} git configs), ${dump.keys} Redis keys, ${api.responses} dashboard responses, ` +
        `${model.requests.length} model requests, the run's and status's output, every process's argv: 0 leaks`,
    );
  }, 600_000);
});
