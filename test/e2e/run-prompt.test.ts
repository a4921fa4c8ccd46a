import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeatureList } from '../../handoff/feature-list.js';
import { gitClient, openRepo } from '../../handoff/git.js';
import { PLAN_RECORD_FILE } from '../../handoff/spec-origin.js';
import { plannedSpecProblems } from '../../roles/planner-spec.js';
import {
  cliEnv,
  createE2eContext,
  type E2eContext,
  runCliOnce,
  startCli,
  startScriptedServer,
  writeConfig,
} from './helpers.js';

// `nightshift run --prompt "…"` as a user types it: the planner writes the spec unattended, the run builds it
// to done with the demo's scripted initializer, generators and evaluator, and the workspace's first commit
// says which prompt the spec came from.
let context: E2eContext;
beforeAll(() => {
  context = createE2eContext('prompt');
});
afterAll(() => context.close());

const PROMPT = 'A todo list for the household: add chores, tick them off, see how many are left.';

describe('nightshift run --prompt', () => {
  it('plans a spec from the prompt, builds it to done, and records the prompt in the first commit', async () => {
    const server = await startScriptedServer(context);
    const env = cliEnv(context, {
      home: path.join(context.root, 'home'),
      configFile: writeConfig(context),
      anthropicBaseURL: server.anthropicBaseURL,
    });
    const workspace = path.join(context.root, 'todo');
    const run = startCli(context, ['run', '--prompt', PROMPT, '--workspace', workspace], env, 'run');
    const code = await run.exited;
    const output = fs.readFileSync(run.logFile, 'utf8');
    expect(code, output.slice(-3_000)).toBe(0);
    expect(output).toMatch(/planning p-[a-z0-9]+ with anthropic:scripted \(unattended\)/);
    expect(output).toMatch(/run done — 8\/8 features passing/);
    const runId = /run (r-[A-Za-z0-9_-]+): workspace/.exec(output)?.[1] as string;

    const status = await runCliOnce(['status', runId, '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({
      status: 'done',
      features: { total: 8, passing: 8, failing: 0, blocked: 0 },
    });
    expect((await readFeatureList(workspace)).every((feature) => feature.passes)).toBe(true);

    // The planned spec is what the run built, and its origin is the run's first commit.
    const spec = fs.readFileSync(path.join(workspace, 'app_spec.md'), 'utf8');
    expect(plannedSpecProblems(spec)).toEqual([]);
    expect(spec).toContain('A todo list for the household');
    const git = gitClient(openRepo(workspace));
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
