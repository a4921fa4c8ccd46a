import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResponse, RunsResponse } from '../../dashboard/api-types.js';
import { shortTodoSpec } from '../integration/runs/harness.js';
import {
  allEvents,
  allSessions,
  cliEnv,
  createE2eContext,
  type E2eContext,
  postToDashboard,
  runCliOnce,
  sleep,
  startCli,
  startCliInTerminal,
  startDashboardProcess,
  startScriptedServer,
  untilSessionInFlight,
  writeConfig,
} from './helpers.js';

// A foreground `nightshift run` in a terminal and every way out of it: a Ctrl-C while the evaluator has its app
// and browser up (the terminal sends SIGINT to the whole foreground process group), a pause from the dashboard,
// a resume from the dashboard with nobody to work the run, `run` again to work it here, and `run` on the finished
// workspace (refused, offering --new) and with --new. Real CLI, dashboard and worker processes throughout.
let context: E2eContext;
let env: NodeJS.ProcessEnv;
let workspace: string;
let args: string[];
let runId: string;
let dashboard: string;
beforeAll(async () => {
  context = createE2eContext('control-fg');
  // Slow replies: an evaluation is still going when the Ctrl-C comes.
  const server = await startScriptedServer(context, undefined, { latencyMs: 40 });
  env = cliEnv(context, {
    home: path.join(context.root, 'home'),
    configFile: writeConfig(context),
    anthropicBaseURL: server.anthropicBaseURL,
  });
  workspace = path.join(context.root, 'todo');
  args = ['run', shortTodoSpec(context.root, 2), '--workspace', workspace];
  dashboard = await startDashboardProcess(context, env);
});
afterAll(() => context.close());

describe('a foreground run and the ways it stops', () => {
  it('Ctrl-C during an evaluation pauses the run, records no verdict and says how to go on', async () => {
    const first = startCliInTerminal(context, args, env, 'run-ctrl-c');
    ({ id: runId } = await untilSessionInFlight(context.store, workspace, 'evaluator'));
    // The evaluator has made a model request: its app and browser are up.
    await untilModelRequest(runId);
    // The terminal's Ctrl-C goes to its foreground process group: the CLI's alone, not the browser's or the app's.
    const groups = processGroups();
    const cli = groups.find((entry) => entry.command.includes('bin/nightshift.js run'));
    const others = groups.filter((entry) => /chromium|server\.js|init\.sh/.test(entry.command));
    expect(cli, JSON.stringify(groups)).toBeDefined();
    expect(
      others.some((entry) => entry.command.includes('chromium')),
      JSON.stringify(groups),
    ).toBe(true);
    expect(
      others.some((entry) => !entry.command.includes('chromium')),
      JSON.stringify(groups),
    ).toBe(true);
    expect(others.filter((entry) => entry.group === cli?.group)).toEqual([]);
    first.typeCtrlC();
    const code = await first.exited;
    const screen = first.screen();
    expect(code, screen.slice(-3_000)).toBe(130);
    expect(screen).toContain(`Ctrl-C: pausing run ${runId}`);
    expect(screen).toContain(`run ${runId} is paused. Go on with the same \`nightshift run\` command`);
    // The browser was not killed by the terminal's Ctrl-C (it is the harness's to close; its log says so).
    expect(first.log()).toContain('"level"');
    expect(first.log()).not.toContain('chromium disconnected');

    expect(await context.store.getRun(runId)).toMatchObject({ status: 'paused', pausedReason: 'user' });
    await expectInterruptedEvaluation('the run was paused');
    const status = await runCliOnce(['status', runId, '--json'], env);
    expect(JSON.parse(status.stdout).lastSession).toMatchObject({ role: 'evaluator', state: 'finished' });
  }, 300_000);

  it('a pause from the dashboard ends the foreground run with exit 3, saying who paused it and how to go on', async () => {
    const second = startCliInTerminal(context, args, env, 'run-dashboard-pause');
    await untilSessionInFlight(context.store, workspace, 'evaluator');
    await untilModelRequest(runId);
    const paused = (await postToDashboard(dashboard, `/api/runs/${runId}/pause`)) as RunResponse;
    expect(paused.run).toMatchObject({ status: 'paused', detail: 'paused from the dashboard' });
    const code = await second.exited;
    const screen = second.screen();
    expect(code, screen.slice(-3_000)).toBe(3);
    expect(screen).toContain(`run ${runId} on this workspace was paused (user): resumed`);
    expect(screen).toContain(
      `run ${runId} is paused (paused from the dashboard). Go on with the same \`nightshift run\` command`,
    );
    await expectInterruptedEvaluation('the run was paused');
  }, 300_000);

  it('resumed from the dashboard with no worker, every view says so and how to start one', async () => {
    const resumed = (await postToDashboard(dashboard, `/api/runs/${runId}/resume`)) as RunResponse;
    expect(resumed.run.status).toBe('building');
    expect(resumed.run.workers).toBe(0);
    expect(resumed.run.noWorker).toContain('No worker is connected: start one with `nightshift worker`');
    expect(resumed.run.noWorker).toContain(`nightshift run ${args[1]} --workspace ${workspace}`);
    const { runs } = (await (await fetch(`${dashboard}/api/runs`)).json()) as RunsResponse;
    expect(runs.find((run) => run.id === runId)?.noWorker).toBe(resumed.run.noWorker);
    const status = await runCliOnce(['status', runId], env);
    expect(status.stdout).toMatch(/next\s+.*\(no worker is connected: start one with `nightshift worker`/);
    // `follow` from another terminal says so on its progress line; Ctrl-C stops following (130), not the run.
    const follower = startCli(context, ['follow', runId], env, 'follow-no-worker');
    await untilLogged(follower.logFile, 'no worker is connected: start one with `nightshift worker`');
    follower.child.kill('SIGINT');
    expect(await follower.exited).toBe(130);
    expect((await context.store.getRun(runId)).status).toBe('building');

    // Paused and resumed from the CLI: the same answer.
    const pause = await runCliOnce(['pause', runId], env);
    expect(pause.stdout).toContain(`${runId} paused (user)`);
    expect((await context.store.getRun(runId)).detail).toBe('paused with `nightshift pause`');
    const resume = await runCliOnce(['resume', runId], env);
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toContain('the next session is queued, but no worker is connected');
    // --detach would leave it to workers that are not there: refused, saying how on.
    const detached = await runCliOnce([...args, '--detach'], env);
    expect(detached.code).toBe(2);
    expect(detached.stderr).toContain('No worker is connected: start one (`nightshift worker`)');
    expect(detached.stderr).not.toContain('nightshift resume');
  }, 120_000);

  it('`run` again works the resumed run here, to done', async () => {
    const third = startCli(context, args, env, 'run-attach');
    const code = await third.exited;
    const log = fs.readFileSync(third.logFile, 'utf8');
    expect(code, log.slice(-3_000)).toBe(0);
    expect(log).toContain(
      `run ${runId} on this workspace is building (no worker is connected): working it here`,
    );
    expect(log).toMatch(/run done — 2\/2 features passing/);
    const features = await context.store.listFeatures(runId);
    expect(features.map((feature) => feature.lastVerdict)).toEqual(['pass', 'pass']);
  }, 300_000);

  it('`run` on the finished workspace names the run and offers --new; --new re-checks and finishes', async () => {
    const again = await runCliOnce(args, env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`The workspace ${workspace} has a finished run: ${runId} ended done`);
    expect(again.stderr).toContain('2/2 features passing');
    expect(again.stderr).toContain('the same command with `--new`');
    expect(await runsOnWorkspace()).toEqual([runId]);

    const fresh = await runCliOnce([...args, '--new'], env);
    expect(fresh.code, fresh.stderr.slice(-3_000)).toBe(0);
    const [newest, ...older] = await runsOnWorkspace();
    expect(older).toEqual([runId]);
    const run = await context.store.getRun(newest as string);
    expect(run).toMatchObject({ status: 'done', features: { total: 2, passing: 2 } });
    // Its one session re-checked both passing features by replaying their recorded checks.
    const sessions = await allSessions(context.store, run.id);
    expect(sessions.map((session) => [session.kind, session.costUsd])).toEqual([['regress', 0]]);
  }, 300_000);
});

/** The run's newest evaluation was interrupted: no verdict, no `blocked` on a feature, nothing left in flight. */
async function expectInterruptedEvaluation(why: string): Promise<void> {
  const sessions = await allSessions(context.store, runId);
  expect(sessions.filter((session) => !session.finishedAt)).toEqual([]);
  const evaluation = sessions.findLast((session) => session.role === 'evaluator');
  expect(evaluation).toMatchObject({ outcome: 'aborted', verdicts: [] });
  expect(evaluation?.reason).toBe(`interrupted, not judged: ${why}`);
  const features = await context.store.listFeatures(runId);
  expect(features.map((feature) => feature.lastVerdict)).not.toContain('blocked');
}

/** Ids of the runs on the test's workspace, newest first. */
async function runsOnWorkspace(): Promise<string[]> {
  return (await context.store.listRuns())
    .filter((run) => run.workspace.kind === 'local' && run.workspace.path === workspace)
    .map((run) => run.id);
}

/** Waits until the run's newest session has sent a model request. */
async function untilModelRequest(id: string): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    const events = await allEvents(context.store, id);
    const started = events.findLast(({ event }) => event.type === 'session.started');
    const since = started ? events.slice(events.indexOf(started)) : [];
    if (since.some(({ event }) => event.type === 'agent' && event.event.type === 'model.request')) return;
    await sleep(100);
  }
  throw new Error(`run ${id}: no model request in its newest session`);
}

/** Every process of this test (the marker in its environment, or its directory): command line and process group. */
function processGroups(): Array<{ pid: number; group: number; command: string }> {
  const found: Array<{ pid: number; group: number; command: string }> = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      // The app's box has a scrubbed environment: it is found by its working directory (an app copy under root).
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      const ours =
        environ.includes(`NIGHTSHIFT_E2E_MARKER=${context.marker}\0`) || cwd.startsWith(`${context.root}/`);
      if (!ours) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name (in parentheses, which may hold spaces): state, ppid, pgrp.
      const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      found.push({ pid, group, command });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Waits until a process's log holds `text`. */
async function untilLogged(file: string, text: string): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    if (fs.readFileSync(file, 'utf8').includes(text)) return;
    await sleep(100);
  }
  throw new Error(`${file} never said: ${text}`);
}
