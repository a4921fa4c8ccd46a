import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortTodoSpec } from '../integration/runs/harness.js';
import {
  allSessions,
  cliEnv,
  createE2eContext,
  type E2eContext,
  postToDashboard,
  runCliOnce,
  startCli,
  startDashboardProcess,
  startScriptedServer,
  type TestProcess,
  untilSessionInFlight,
  writeConfig,
} from './helpers.js';

// A run started with --detach and worked by a `nightshift worker` process: paused and resumed from the dashboard
// and from the CLI in turn, watched from other processes with `follow` and `logs --follow` (their output is a log
// file, as in CI: every line has a timestamp, every verdict a line), read afterwards with `logs`.
let context: E2eContext;
let env: NodeJS.ProcessEnv;
let workspace: string;
let runId: string;
let dashboard: string;
/** `2026-05-01T03:12:04Z ` at the start of a line. */
const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ /;

beforeAll(async () => {
  context = createE2eContext('control-detached');
  const server = await startScriptedServer(context);
  env = cliEnv(context, {
    home: path.join(context.root, 'home'),
    configFile: writeConfig(context),
    anthropicBaseURL: server.anthropicBaseURL,
  });
  workspace = path.join(context.root, 'todo');
  dashboard = await startDashboardProcess(context, env);
});
afterAll(() => context.close());

describe('a detached run, steered from anywhere', () => {
  it('paused from the dashboard and resumed from the CLI, paused from the CLI and resumed from the dashboard, it ends done', async () => {
    // Five features: the fifth one's first implementation has a bug the evaluator fails.
    const spec = shortTodoSpec(context.root, 5);
    const started = await runCliOnce(['run', spec, '--workspace', workspace, '--detach'], env);
    expect(started.code, started.stderr).toBe(0);
    runId = started.stdout.trim();
    const follower = startCli(context, ['follow', runId], env, 'follow-1');
    startCli(context, ['worker'], env, 'worker');
    await untilSessionInFlight(context.store, workspace, 'generator');

    await postToDashboard(dashboard, `/api/runs/${runId}/pause`);
    expect(await follower.exited).toBe(3);
    const followed = linesOf(follower);
    expect(followed.filter((line) => !STAMP.test(line))).toEqual([]);
    expect(followed.at(-2)).toMatch(/run paused \(user\): paused from the dashboard — /);
    expect(followed.at(-1)).toContain(`next: \`nightshift resume ${runId}\``);

    const resumed = await runCliOnce(['resume', runId], env);
    expect(resumed.stdout).toContain('the next session is queued for a worker (1 connected)');
    const logsFollower = startCli(context, ['logs', runId, '--follow'], env, 'logs-follow');
    await untilSessionInFlight(context.store, workspace, 'evaluator');
    const paused = await runCliOnce(['pause', runId], env);
    expect(paused.code, paused.stderr).toBe(0);
    await postToDashboard(dashboard, `/api/runs/${runId}/resume`);
    const follower2 = startCli(context, ['follow', runId], env, 'follow-2');
    expect(await follower2.exited, fs.readFileSync(follower2.logFile, 'utf8').slice(-2_000)).toBe(0);
    expect(await logsFollower.exited).toBe(0);

    const run = await context.store.getRun(runId);
    expect(run).toMatchObject({ status: 'done', features: { total: 5, passing: 5 } });
    const progress = linesOf(follower2);
    expect(progress.filter((line) => !STAMP.test(line))).toEqual([]);
    expect(progress.at(-2)).toMatch(/run done — 5\/5 features passing/);
    // Every verdict given while it followed has a line; the failed one says why.
    expect(progress.some((line) => / F-005 fail \(attempt 1\): .+ \(session \d+\)$/.test(line))).toBe(true);
    expect(progress.some((line) => / F-005 pass \(session \d+\)$/.test(line))).toBe(true);

    // `logs --follow` printed the whole event log, one line per event, until the run ended.
    const events = linesOf(logsFollower);
    expect(events.filter((line) => !STAMP.test(line))).toEqual([]);
    for (const id of ['F-001', 'F-002', 'F-003', 'F-004', 'F-005'])
      expect(events.some((line) => line.includes(` ${id} pass (session `))).toBe(true);
    expect(events.some((line) => line.endsWith(' run paused (user): paused with `nightshift pause`'))).toBe(
      true,
    );
    expect(events.some((line) => / run done$/.test(line))).toBe(true);
  }, 600_000);

  it('logs prints the event log and one session as readable lines', async () => {
    const all = await runCliOnce(['logs', runId], env);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}run created: spec todo-5\.md, workspace /);
    expect(lines).toContainEqual(
      expect.stringMatching(/ {2}run paused \(user\): paused from the dashboard$/),
    );

    const failed = (await allSessions(context.store, runId)).find((session) =>
      session.verdicts.some((verdict) => verdict.verdict === 'fail'),
    );
    expect(failed).toBeDefined();
    const session = await runCliOnce(['logs', runId, '--session', String(failed?.seq)], env);
    expect(session.code, session.stderr).toBe(0);
    const text = session.stdout;
    expect(text).toMatch(/ {2}brief: .*F-005/);
    expect(text).toMatch(/ {2}→ browser_navigate \{url: "http:\/\/127\.0\.0\.1:\d+\/?"\}/);
    expect(text).toMatch(/ {2}← browser_navigate: /);
    expect(text).toMatch(/ {2}→ submit_verdict \{feature_id: "F-005", verdict: "fail"/);
    expect(text).toMatch(/ {2}verdict F-005 fail \(attempt 1\): .+ \(session \d+\)\n/);
    expect(text).toMatch(new RegExp(` {2}session ${failed?.seq} evaluator ended completed\\n$`));

    const missing = await runCliOnce(['logs', runId, '--session', '999'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`Session 999 of run ${runId} has not started.`);
  }, 120_000);
});

/** The non-empty lines a process wrote to its log. */
function linesOf(process: TestProcess): string[] {
  return fs
    .readFileSync(process.logFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('{"level"'));
}
