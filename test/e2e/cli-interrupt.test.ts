import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownCostUsd, type RunRecord } from '../../orchestrator/run/index.js';
import { SCRIPTED_MODEL, shortTodoSpec } from '../integration/runs/harness.js';
import {
  allEvents,
  allSessions,
  cliEnv,
  createE2eContext,
  type E2eContext,
  sleep,
  startCli,
  startCliInTerminal,
  startScriptedServer,
  writeConfig,
} from './helpers.js';

// A foreground `nightshift run` in a terminal, as a person uses it: Ctrl-C pauses the run and says how to go
// on; the same command then resumes it to done, its progress line counting the session in flight.
let context: E2eContext;
beforeAll(() => {
  context = createE2eContext('interrupt');
});
afterAll(() => context.close());

/** Waits (bounded) until the run on `workspace` has a session of `role` in flight; returns the run. */
async function untilInFlight(workspace: string, role: string): Promise<RunRecord> {
  for (let tries = 0; tries < 1_200; tries++) {
    const run = (await context.store.listRuns()).find(
      (candidate) => candidate.workspace.kind === 'local' && candidate.workspace.path === workspace,
    );
    if (run) {
      const { sessions } = await context.store.listSessions(run.id, { offset: 0, limit: 1, order: 'desc' });
      const latest = sessions[0];
      if (latest && !latest.finishedAt && latest.role === role) return run;
    }
    await sleep(200);
  }
  throw new Error(`no ${role} session was in flight on ${workspace} within 4 minutes`);
}

/** The costs the progress line showed, in order, up to the summary line (redraws split on `\r`). */
function progressCosts(screen: string): number[] {
  const before = screen.slice(0, screen.indexOf('run done'));
  return before
    .split(/\r|\n/)
    .map((line) => /passing · .* · \$(\d+\.\d\d) · /.exec(line)?.[1])
    .filter((cost): cost is string => cost !== undefined)
    .map(Number);
}

/** For a failure's message: the run's last events and the CLI log's warnings and errors. */
async function whatHappened(log: string, runId: string): Promise<string> {
  const events = (await allEvents(context.store, runId))
    .slice(-15)
    .map((stored) => JSON.stringify(stored).slice(0, 400));
  const warnings = log
    .split('\n')
    .filter((line) => /"level":(4|5)\d/.test(line))
    .slice(-20);
  return ['last events:', ...events, 'logged warnings:', ...warnings.map((line) => line.slice(0, 600))].join(
    '\n',
  );
}

const cents = (usd: number) => Math.round(usd * 100);

describe('nightshift run in a terminal', () => {
  it('Ctrl-C pauses the run, says how to go on, exits 130; the same command resumes it to done', async () => {
    const server = await startScriptedServer(context);
    const env = cliEnv(context, {
      home: path.join(context.root, 'home'),
      // Fifty times the scripted price: a session costs dollars, so amounts within a session show in cents.
      configFile: writeConfig(context, {
        prices: { [SCRIPTED_MODEL]: { inputPerMTok: 150, outputPerMTok: 750 } },
        budgets: { maxCostUsd: null },
      }),
      anthropicBaseURL: server.anthropicBaseURL,
    });
    const workspace = path.join(context.root, 'todo');
    const args = ['run', shortTodoSpec(context.root, 2), '--workspace', workspace];

    const first = startCliInTerminal(context, args, env, 'run-interrupted');
    const { id } = await untilInFlight(workspace, 'generator');
    first.typeCtrlC();
    const code = await first.exited;
    const screen = first.screen();
    expect(code, screen.slice(-3_000)).toBe(130);
    expect(screen).toContain(
      `Ctrl-C: pausing run ${id}; the session in flight stops at its next turn with a checkpoint`,
    );
    expect(screen).toContain(
      `run ${id} is paused. Go on with the same \`nightshift run\` command (it resumes the run on this workspace)`,
    );
    // In Redis: paused by the user, nothing in flight, the interrupted generator ended with a checkpoint.
    const paused = await context.store.getRun(id);
    expect(paused).toMatchObject({
      status: 'paused',
      pausedReason: 'user',
      detail: 'interrupted (Ctrl-C) in the foreground',
    });
    const sessions = await allSessions(context.store, id);
    const interrupted = sessions.at(-1);
    expect(interrupted, await whatHappened(first.log(), id)).toMatchObject({
      role: 'generator',
      finishedAt: expect.any(String),
    });
    expect(['checkpointed', 'completed']).toContain(interrupted?.outcome);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: workspace, encoding: 'utf8' })).toBe('');

    // What the CLI said to do next works: the same command resumes that run (no second run) to done.
    const second = startCliInTerminal(context, args, env, 'run-resumed');
    expect(await second.exited, second.screen().slice(-3_000)).toBe(0);
    const resumed = second.screen();
    expect(resumed).toContain(`run ${id} on this workspace was paused (user): resumed`);
    expect(resumed).toMatch(/run done — 2\/2 features passing/);
    const done = await context.store.getRun(id);
    expect(done.status).toBe('done');
    const runs = (await context.store.listRuns()).filter(
      (run) => run.workspace.kind === 'local' && run.workspace.path === workspace,
    );
    expect(runs.map((run) => run.id)).toEqual([id]);

    // The progress line's cost counts the session in flight. Without it the line would only ever show the
    // run's cost at a session boundary; with it, it also shows amounts between two boundaries. It never goes
    // above the final cost, never goes down, and its last value is not behind by the last paid session.
    const finalUsd = knownCostUsd(done.counters) as number;
    expect(resumed).toContain(`, $${finalUsd.toFixed(2)}, `);
    const all = await allSessions(context.store, id);
    const boundaries = new Set([0]);
    let sum = 0;
    for (const session of all) {
      sum += session.costUsd ?? 0;
      boundaries.add(cents(sum));
    }
    const lastPaid = all.filter((session) => (session.costUsd ?? 0) > 0).at(-1)?.costUsd ?? 0;
    const costs = progressCosts(resumed).map(cents);
    expect(costs.length, resumed.slice(0, 2_000)).toBeGreaterThan(0);
    console.log(`[cli-interrupt] progress costs (cents) ${costs.join(' ')}; final ${finalUsd.toFixed(4)}`);
    for (const [index, cost] of costs.entries()) {
      expect(cost).toBeLessThanOrEqual(cents(finalUsd));
      if (index > 0) expect(cost).toBeGreaterThanOrEqual(costs[index - 1] as number);
    }
    expect(costs.some((cost) => !boundaries.has(cost))).toBe(true);
    expect(costs.at(-1) as number).toBeGreaterThan(cents(finalUsd - lastPaid));
  }, 600_000);

  it('a run whose record vanishes from Redis: the CLI says so, stops its worker and exits 1', async () => {
    const server = await startScriptedServer(context);
    const env = {
      ...cliEnv(context, {
        home: path.join(context.root, 'home-vanish'),
        configFile: writeConfig(context),
        anthropicBaseURL: server.anthropicBaseURL,
      }),
      NIGHTSHIFT_SHUTDOWN_GRACE_SECONDS: '5',
    };
    const workspace = path.join(context.root, 'todo-vanish');
    const cli = startCli(
      context,
      ['run', shortTodoSpec(context.root, 2), '--workspace', workspace],
      env,
      'vanish',
    );
    const { id } = await untilInFlight(workspace, 'generator');
    // As a Redis restarted without its data would leave it: the run's keys are gone mid-session.
    await context.store.deleteRun(id);
    // Before the fix the error was printed and the process never ended: its worker kept it alive.
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      cli.exited,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve('still running after 60 s'), 60_000);
      }),
    ]);
    clearTimeout(timer);
    const log = fs.readFileSync(cli.logFile, 'utf8');
    expect(code, log.slice(-3_000)).toBe(1);
    expect(log).toContain(`run ${id}: following it failed; stopping this terminal's worker`);
    expect(log).toContain(`Run ${id} disappeared from Redis while it was running`);
    expect(log).toContain('"msg":"worker stopped"');
  }, 400_000);
});
