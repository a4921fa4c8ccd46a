import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../handoff/app-runner.js';
import { readFeatureList } from '../../../handoff/feature-list.js';
import { readVerdicts } from '../../../handoff/verdicts.js';
import { deleteKeys, REDIS_URL } from '../runs/harness.js';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-demo-e2e-'));
// The demo uses the configured key prefix like any command: a test prefix keeps it apart from other tests.
const prefix = `ns-demo-${process.pid}-${Date.now().toString(36)}:`;

afterAll(async () => {
  fs.rmSync(home, { recursive: true, force: true });
});

/** Runs the CLI as a separate process, as a user would, and collects its output. */
function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/nightshift.js', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('nightshift demo, end to end through the CLI processes', () => {
  it('builds the todo app from spec to done: every feature passed through the evaluator, the planted bug caught', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NIGHTSHIFT_HOME: home,
      NIGHTSHIFT_KEY_PREFIX: prefix,
      REDIS_URL,
    };
    delete env.VITEST;
    delete env.NIGHTSHIFT_LOG_LEVEL;
    // Five features: the planted bug of F-005 and its fix, in five eighths of the whole demo's time (CI runs that too).
    const result = await runCli(['demo', '--features', '5'], env);
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    // Human output only: the log lines went to the data dir.
    const jsonLines = `${result.stdout}\n${result.stderr}`
      .split(/[\r\n]/)
      .filter((line) => line.includes('{"level"'));
    expect(jsonLines, jsonLines.slice(0, 3).join('\n')).toEqual([]);
    expect(fs.readFileSync(path.join(home, 'logs', 'demo.log'), 'utf8')).toMatch(/"level":30/);
    // No URL that dies with the command: the way to open the dashboard on this run instead.
    const runId = /nightshift status (r-[\w-]+)/.exec(result.stdout)?.[1] as string;
    expect(result.stdout).toMatch(new RegExp(`dashboard\\s+nightshift dashboard .*/runs/${runId}`));
    expect(result.stdout).toMatch(/verdicts\s+\d+ evaluations .*regression session re-checks several/);
    // The demo run is an ordinary run afterwards: `runs`, `status` and the dashboard's API show it.
    const runs = await runCli(['runs', '--json'], env);
    expect(JSON.parse(runs.stdout).map((run: { id: string }) => run.id)).toContain(runId);
    const status = await runCli(['status', runId], env);
    expect(status.stdout).toMatch(/status\s+done/);
    expect(status.stdout).toMatch(/last session\s+#\d+ evaluator/);
    await expectDashboardLists(env, runId);
    expect(result.stdout).toMatch(/features\s+5\/5 passed through the browser evaluator/);
    expect(result.stdout).toMatch(/caught bug F-\d{3}/);
    const workspace = /workspace\s+(\S+)/.exec(result.stdout)?.[1] as string;
    expect(fs.existsSync(path.join(workspace, 'feature_list.json'))).toBe(true);

    const features = await readFeatureList(workspace);
    expect(features).toHaveLength(5);
    expect(features.every((feature) => feature.passes)).toBe(true);
    const { records } = await readVerdicts(workspace);
    const failed = records.find((record) => record.verdict === 'fail');
    expect(failed).toBeDefined();
    const later = records.filter(
      (record) => record.featureId === failed?.featureId && record.at > (failed?.at ?? ''),
    );
    expect(later.some((record) => record.verdict === 'pass')).toBe(true);
    // The failed verdict's issue (the scripted evaluator repeats the failing step's evidence as its issue) is
    // said once: in the demo's own output, and in the feedback file the next generator read.
    const issue = failed?.issues[0] as string;
    const times = (text: string) => text.split(issue).length - 1;
    expect(times(`${result.stdout}${result.stderr}`)).toBe(1);
    const feedbackAt = spawnSync(
      'git',
      ['log', '--format=%H', '-1', `--grep=verdict: ${failed?.featureId} fail`],
      { cwd: workspace, encoding: 'utf8' },
    ).stdout.trim();
    const feedback = spawnSync(
      'git',
      ['show', `${feedbackAt}:.nightshift/feedback/${failed?.featureId}.md`],
      { cwd: workspace, encoding: 'utf8' },
    ).stdout;
    expect(feedback).toMatch(/## Failing steps/);
    expect(times(feedback)).toBe(1);

    const log = spawnSync('git', ['log', '--format=%an|%s'], { cwd: workspace, encoding: 'utf8' }).stdout;
    expect(log).toMatch(/nightshift agent\|.*(initial|feature list|init)/i);
    expect(log).toMatch(/nightshift agent\|F-00\d/);
    expect(log).toMatch(/nightshift\|nightshift\(harness\): .*verdict: F-\d{3} fail/);
    expect(log).toMatch(/nightshift\|nightshift\(harness\): .*verdict: .*pass/);

    const app = await serveApp(workspace);
    try {
      const created = await fetch(`${app.url}/api/todos`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'from the e2e test' }),
      });
      expect(created.ok).toBe(true);
      const page = await (await fetch(app.url)).text();
      expect(page).toMatch(/<html/i);
      const listed = await (await fetch(`${app.url}/api/todos`)).text();
      expect(listed).toContain('from the e2e test');
    } finally {
      app.stop();
    }
  }, 600_000);
});

afterAll(async () => {
  const redis = new Redis(REDIS_URL);
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

/** `nightshift dashboard` started afterwards lists the run (what its runs page renders). */
async function expectDashboardLists(env: NodeJS.ProcessEnv, runId: string): Promise<void> {
  const child = spawn(process.execPath, ['bin/nightshift.js', 'dashboard', '--port', '0', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const first = await new Promise<string>((resolve) =>
      child.stdout.once('data', (chunk) => resolve(String(chunk))),
    );
    const { url } = JSON.parse(first.split('\n')[0] as string) as { url: string };
    const body = (await (await fetch(`${url}/api/runs`)).json()) as { runs: Array<{ id: string }> };
    expect(body.runs.map((run) => run.id)).toContain(runId);
  } finally {
    child.kill('SIGTERM');
  }
}

/** Starts the built app with its own init.sh on a free port. */
async function serveApp(workspace: string): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child = spawn('bash', ['init.sh'], {
    cwd: workspace,
    env: { ...process.env, PORT: String(port) },
    detached: true,
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url, stop: () => process.kill(-(child.pid as number), 'SIGKILL') };
}
