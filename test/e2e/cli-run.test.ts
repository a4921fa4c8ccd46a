import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../handoff/feature-list.js';
import { openRepo, runGit } from '../../handoff/git.js';
import { PLAN_RECORD_FILE } from '../../handoff/spec-origin.js';
import { plannedSpecProblems } from '../../roles/planner-spec.js';
import { shortTodoSpec } from '../integration/runs/harness.js';
import {
  cliEnv,
  createE2eContext,
  type E2eContext,
  runCliOnce,
  startCli,
  startScriptedServer,
  writeConfig,
} from './helpers.js';

// `nightshift run <spec> --workspace DIR` in the foreground, as a user types it: the CLI registers the run,
// works it with its own in-process worker, shows progress, and exits when the run ends.
let context: E2eContext;
beforeAll(() => {
  context = createE2eContext('cli');
});
afterAll(() => context.close());

/** `nightshift run <args>` in the foreground against a fresh scripted server; expects exit 0. */
async function runForeground(args: string[], label: string) {
  const server = await startScriptedServer(context);
  const env = cliEnv(context, {
    home: path.join(context.root, 'home'),
    configFile: writeConfig(context),
    anthropicBaseURL: server.anthropicBaseURL,
  });
  const run = startCli(context, ['run', ...args], env, label);
  const code = await run.exited;
  const output = fs.readFileSync(run.logFile, 'utf8');
  expect(code, output.slice(-3_000)).toBe(0);
  return { env, output };
}

describe('nightshift run (foreground)', () => {
  it('builds the todo example to done and exits 0; status --json then has the DESIGN.md fields', async () => {
    const workspace = path.join(context.root, 'todo');
    const started = Date.now();
    const { env, output } = await runForeground(
      // Three features of the todo example: the whole foreground path, in less than half the full build's time.
      [shortTodoSpec(context.root, 3), '--workspace', workspace],
      'run',
    );
    console.log(`[cli-run] foreground run took ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const runId = /run (r-[A-Za-z0-9_-]+): workspace/.exec(output)?.[1];
    expect(runId, output.slice(0, 2_000)).toBeDefined();

    const status = await runCliOnce(['status', runId as string, '--json'], env);
    expect(status.code, status.stderr).toBe(0);
    const json = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(
      [
        'id',
        'name',
        'status',
        'pausedReason',
        'workspace',
        'features',
        'sessions',
        'costUsd',
        'costUnknownSessions',
        'startedAt',
        'updatedAt',
        'detail',
        'spec',
        'blocked',
        'budgets',
        'lanes',
        'lastSession',
        'next',
        'workers',
        'finishedAt',
        'elapsedMs',
        'story',
      ].sort(),
    );
    expect(json).toMatchObject({
      id: runId,
      // Named after the spec's title.
      name: 'Todo app',
      status: 'done',
      pausedReason: null,
      workspace,
      features: { total: 3, passing: 3, failing: 0, blocked: 0 },
    });
    expect(json.sessions).toBeGreaterThanOrEqual(7);
    // The night's story, as the run page tells it: every feature in the passing group.
    expect(json.story).toMatchObject({ counts: { passing: 3, blocked: 0 } });
    expect(json.costUsd).toBeGreaterThan(0);
    for (const field of ['startedAt', 'updatedAt'] as const) {
      expect(Number.isNaN(Date.parse(String(json[field])))).toBe(false);
    }
    expect((await readFeatureList(workspace)).every((feature) => feature.passes)).toBe(true);
    // The foreground command showed its progress and summary on stderr.
    expect(output).toMatch(/run done — 3\/3 features passing/);
  }, 600_000);
});

// `nightshift run --prompt "…"`: the planner writes the spec unattended (the demo policy plays it too), the run
// builds it to done, and the workspace's first commit says which prompt the spec came from.
// `[scripted:features-4]`: the scripted planner's spec asks the scripted initializer for four features only.
const PROMPT =
  'A todo list for the household: add chores, tick them off, see how many are left. [scripted:features-4]';

describe('nightshift run --prompt', () => {
  it('plans a spec from the prompt, builds it to done, and records the prompt in the first commit', async () => {
    const workspace = path.join(context.root, 'todo-planned');
    const { env, output } = await runForeground(['--prompt', PROMPT, '--workspace', workspace], 'run-prompt');
    expect(output).toMatch(/planning p-[a-z0-9]+ with anthropic:scripted \(unattended\)/);
    expect(output).toMatch(/run done — 4\/4 features passing/);
    const runId = /run (r-[A-Za-z0-9_-]+): workspace/.exec(output)?.[1] as string;

    const status = await runCliOnce(['status', runId, '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({
      status: 'done',
      features: { total: 4, passing: 4, failing: 0, blocked: 0 },
    });
    expect((await readFeatureList(workspace)).every((feature) => feature.passes)).toBe(true);

    // The planned spec is what the run built, and its origin is the run's first commit.
    const spec = fs.readFileSync(path.join(workspace, 'app_spec.md'), 'utf8');
    expect(plannedSpecProblems(spec)).toEqual([]);
    expect(spec).toContain('A todo list for the household');
    const git = { raw: (args: string[]) => runGit(openRepo(workspace), args) };
    const first = (await git.raw(['rev-list', '--max-parents=0', 'HEAD'])).trim();
    const message = await git.raw(['log', '-1', '--format=%B', first]);
    expect(message).toContain(`from the prompt:\n\n> ${PROMPT}`);
    const files = (await git.raw(['show', '--name-only', '--format=', first])).trim().split('\n').sort();
    expect(files).toEqual(['.gitignore', PLAN_RECORD_FILE, 'app_spec.md']);
    const record = fs.readFileSync(path.join(workspace, PLAN_RECORD_FILE), 'utf8');
    expect(record).toContain('None: the planner worked from the prompt alone.');
    expect(record).toContain('edited by a person before the run: no');
  }, 600_000);
});
