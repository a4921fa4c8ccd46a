import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepo, runGit } from '../../../handoff/git.js';
import { PLAN_RECORD_FILE } from '../../../handoff/spec-origin.js';
import { RunStore } from '../../../orchestrator/run/index.js';
import { plannedSpecProblems } from '../../../roles/planner-spec.js';
import { PLANNER_QUESTIONS, plannerPolicy } from '../../../testkit/policies/planner.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { connect } from '../orchestrator/redis-helpers.js';
import { CLI_ENTRY, cliEnv, deleteKeys, runCli, tempDir, uniquePrefix } from './helpers.js';

// `nightshift plan` as a person (stdin answers) and a script (`--no-interactive`) use it: the real CLI process,
// the scripted planner over the real Anthropic SDK, real Redis when a run is started.
let server: ModelServer;
let redis: Redis;
let store: RunStore;
let prefix: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startModelServer({ policy: plannerPolicy });
  redis = connect();
  prefix = uniquePrefix();
  store = new RunStore(redis, { prefix });
  home = fs.realpathSync(tempDir('plan'));
  const configFile = path.join(home, 'nightshift.config.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      run: {
        models: { generator: 'anthropic:scripted' },
        prices: { 'anthropic:scripted': { inputPerMTok: 3, outputPerMTok: 15 } },
      },
    }),
  );
  env = cliEnv(home, prefix, {
    NIGHTSHIFT_CONFIG: configFile,
    ANTHROPIC_API_KEY: 'sk-ant-scripted-000000',
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
  });
});

afterAll(async () => {
  await server.close();
  await deleteKeys(redis, prefix);
  await store.close();
  redis.disconnect();
  fs.rmSync(home, { recursive: true, force: true });
});

/** A CLI process whose stdin the test holds: it may write, or never write and never close it. */
interface Interactive {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr contains `text`. */
  waitFor(text: string): Promise<void>;
  exited: Promise<number>;
}

function startPlan(args: string[]): Interactive {
  const child = spawn(process.execPath, [CLI_ENTRY, 'plan', ...args], { cwd: home, env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    for (const waiter of waiters.filter((candidate) => stderr.includes(candidate.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor: (text) =>
      stderr.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.push({ text, resolve });
            void exited.then(() =>
              reject(new Error(`exited before printing ${JSON.stringify(text)}:\n${stderr}`)),
            );
          }),
    exited,
  };
}

/** Tool names declared by the requests received since `from`. */
function declaredTools(from: number): string[] {
  return server.requests.slice(from).flatMap((request) => {
    const body = JSON.parse(request.body) as { tools?: Array<{ name: string }> };
    return (body.tools ?? []).map((tool) => tool.name);
  });
}

describe('nightshift plan', () => {
  it('asks its questions on the terminal, uses the answers, shows the spec and asks before a run', async () => {
    const out = path.join(home, 'groceries.md');
    const plan = startPlan(['A shared grocery list for our flat.', '--out', out]);
    await plan.waitFor(PLANNER_QUESTIONS[0]);
    plan.child.stdin.write('the four of us sharing a flat\n');
    await plan.waitFor(PLANNER_QUESTIONS[1]);
    plan.child.stdin.write('Warm orange, big touch targets\n');
    await plan.waitFor('Start a run with groceries.md now?');
    plan.child.stdin.write('n\n');
    expect(await plan.exited, plan.stderr()).toBe(0);
    const spec = fs.readFileSync(out, 'utf8');
    expect(plannedSpecProblems(spec)).toEqual([]);
    expect(spec).toContain('Made for: the four of us sharing a flat.');
    expect(spec).toContain('Warm orange, big touch targets.');
    expect(plan.stdout()).toBe(spec);
    expect(plan.stderr()).toContain(`spec saved to ${out}`);
    expect(plan.stderr()).toContain('start it when you like: nightshift run');
    expect(await store.listRuns()).toEqual([]);
  }, 180_000);

  it('--no-interactive never reads stdin: a pipe never written nor closed does not hold it up', async () => {
    const out = path.join(home, 'scripted.md');
    const from = server.requests.length;
    const plan = startPlan([
      'A todo list for my weekend projects.',
      '--out',
      out,
      '--no-interactive',
      '--json',
    ]);
    // stdin stays open and silent for the whole test.
    expect(await plan.exited, plan.stderr()).toBe(0);
    expect(plan.stderr()).not.toContain('The planner has');
    expect(plan.stderr()).not.toContain('Start a run');
    expect(declaredTools(from).every((name) => name === 'submit_spec')).toBe(true);
    const json = JSON.parse(plan.stdout()) as Record<string, unknown>;
    expect(json).toMatchObject({ model: 'anthropic:scripted', spec: out, questions: [], run: null });
    expect(json.costUsd).toBeGreaterThan(0);
    expect(plannedSpecProblems(fs.readFileSync(out, 'utf8'))).toEqual([]);
    plan.child.stdin.destroy();
  }, 180_000);

  it('refuses to overwrite a spec without --force, before asking the model anything', async () => {
    const out = path.join(home, 'existing.md');
    fs.writeFileSync(out, '# mine\n');
    const from = server.requests.length;
    const plan = startPlan(['A todo list.', '--out', out, '--no-interactive']);
    expect(await plan.exited).toBe(2);
    expect(plan.stderr()).toContain(`${out} already exists`);
    expect(plan.stderr()).toContain('--force');
    expect(server.requests.length).toBe(from);
    expect(fs.readFileSync(out, 'utf8')).toBe('# mine\n');
  }, 180_000);

  it('a planner that tries to write outside the spec fails with a clear error and writes nothing', async () => {
    const out = path.join(home, 'hostile.md');
    const plan = startPlan(['A todo list. [scripted:hostile]', '--out', out, '--no-interactive']);
    expect(await plan.exited).toBe(1);
    expect(plan.stderr()).toContain('The planner produced no spec: it stopped without submitting a spec');
    expect(plan.stderr()).toContain('planner: its write call was refused');
    expect(plan.stderr()).toContain('→ Try again');
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.existsSync(path.join(home, 'outside-the-spec.md'))).toBe(false);
  }, 180_000);

  it('an empty spec is refused with a clear error', async () => {
    const out = path.join(home, 'empty.md');
    const plan = startPlan(['A todo list. [scripted:empty]', '--out', out, '--no-interactive']);
    expect(await plan.exited).toBe(1);
    expect(plan.stderr()).toMatch(
      /The planner produced no spec: the spec was refused 3 times; .*The spec is empty/,
    );
    expect(fs.existsSync(out)).toBe(false);
  }, 180_000);

  it('yes after an edit starts a run on the edited spec; the first commit records the prompt', async () => {
    const out = path.join(home, 'edited.md');
    const workspace = path.join(home, 'edited-ws');
    const plan = startPlan(['A packing list for trips.', '--out', out, '--workspace', workspace, '--detach']);
    await plan.waitFor(PLANNER_QUESTIONS[0]);
    plan.child.stdin.write('\n\n');
    await plan.waitFor('Start a run with edited.md now?');
    fs.appendFileSync(out, '\nAdded by hand: print the list.\n');
    plan.child.stdin.write('yes\n');
    expect(await plan.exited, plan.stderr()).toBe(0);
    const runId = plan.stdout().trim().split('\n').at(-1) as string;
    const run = await store.getRun(runId);
    expect(run.status).toBe('initializing');
    expect(run.config.models.planner).toBe('anthropic:scripted');
    expect(fs.readFileSync(path.join(workspace, 'app_spec.md'), 'utf8')).toContain('Added by hand');
    const record = fs.readFileSync(path.join(workspace, PLAN_RECORD_FILE), 'utf8');
    expect(record).toContain('> A packing list for trips.');
    expect(record).toContain(`1. ${PLANNER_QUESTIONS[0]}\n   Answer: (none: the planner decided)`);
    expect(record).toContain('edited by a person before the run: yes');
    const git = { raw: (args: string[]) => runGit(openRepo(workspace), args) };
    expect((await git.raw(['rev-list', '--count', 'HEAD'])).trim()).toBe('1');
    const message = await git.raw(['log', '-1', '--format=%B']);
    expect(message).toMatch(/^nightshift\(harness\): add the spec \(app_spec\.md\) and \.gitignore/);
    expect(message).toContain('from the prompt:\n\n> A packing list for trips.');
    expect(message).toContain('The spec was edited by a person before the run.');
    expect((await git.raw(['ls-files'])).split('\n')).toContain(PLAN_RECORD_FILE);
  }, 180_000);

  it('run --prompt --repo --detach plans unattended and pushes the spec with its record to the remote', async () => {
    const remote = path.join(home, 'remote.git');
    await runGit(openRepo(home), ['init', '-q', '--bare', '-b', 'main', remote]);
    const out = await runCli(
      ['run', '--prompt', 'A reading list for a book club.', '--repo', remote, '--detach'],
      {
        env,
        cwd: home,
      },
    );
    expect(out.code, out.stderr).toBe(0);
    const run = await store.getRun(out.stdout.trim());
    expect(run.workspace).toMatchObject({ kind: 'remote', url: remote, branch: 'main' });
    const git = { raw: (args: string[]) => runGit(openRepo(remote, { bare: true }), args) };
    const files = (await git.raw(['ls-tree', '-r', '--name-only', 'main'])).trim().split('\n').sort();
    // The run's first commit: the spec, the prompt's record and the default .gitignore (handoff/gitignore.ts).
    expect(files).toEqual(['.gitignore', PLAN_RECORD_FILE, 'app_spec.md']);
    const record = await git.raw(['show', `main:${PLAN_RECORD_FILE}`]);
    expect(record).toContain('> A reading list for a book club.');
    expect(record).toContain('None: the planner worked from the prompt alone.');
    expect(await git.raw(['log', '-1', '--format=%B', 'main'])).toContain(
      '> A reading list for a book club.',
    );
  }, 180_000);

  it('run takes a spec or --prompt, exactly one', async () => {
    const neither = await runCli(['run', '--detach'], { env, cwd: home });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('No spec given.');
    const both = await runCli(['run', 'spec.md', '--prompt', 'x', '--detach'], { env, cwd: home });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('A spec file and --prompt exclude each other.');
  }, 180_000);
});
