import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStatusJson } from '../../cli/status.js';
import { PruneReport } from '../../orchestrator/prune.js';
import { shortTodoSpec } from '../integration/runs/harness.js';
import {
  cliEnv,
  createE2eContext,
  type E2eContext,
  runCliOnce,
  startScriptedServer,
  writeConfig,
} from './helpers.js';

// A whole run in two lanes through the real CLI (its in-process worker), the scripted model server and git: the
// first three todo features form one depends_on chain, so the lanes cannot pay — `run` says so once, with the lanes
// model's expectation. When the run is done its lane branches and clones are gone; `prune` then removes its records
// and keeps the workspace with its history.
let context: E2eContext;
beforeAll(() => {
  context = createE2eContext('lanes-housekeeping');
});
afterAll(() => context.close());

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();

describe('a run in lanes on a chained feature list', () => {
  it('prints the lanes estimate once, ends done without lane branches or clones, and prunes cleanly', async () => {
    const server = await startScriptedServer(context);
    const home = path.join(context.root, 'home');
    const env = cliEnv(context, {
      home,
      configFile: writeConfig(context),
      anthropicBaseURL: server.anthropicBaseURL,
    });
    const workspace = path.join(context.root, 'todo');
    const out = await runCliOnce(
      ['run', shortTodoSpec(context.root, 3), '--workspace', workspace, '--lanes', '2', '--json'],
      env,
    );
    expect(out.code, out.stderr.slice(-3_000)).toBe(0);
    const run = RunStatusJson.parse(JSON.parse(out.stdout));
    expect(run).toMatchObject({ status: 'done', name: 'Todo app', features: { total: 3, passing: 3 } });

    const notice =
      'note: --lanes 2 is unlikely to pay for itself here: 3 feature(s) to build; at most 1 can ever be in flight at once; ' +
      'a depends_on chain of 3 goes one after another (F-001 → F-002 → F-003). Expected (the lanes model, docs/lanes.md): ' +
      'about 1.1× the time of one lane (no faster) at 1.0× the cost';
    expect(out.stderr.split(notice).length - 1, out.stderr.slice(-3_000)).toBe(1);

    // The lanes did their work on branches, merged into the run branch; the branches and clones are gone.
    expect(git(workspace, 'log', '--oneline', 'main')).toMatch(/nightshift\(merge\): F-003 from lane/);
    expect(git(workspace, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/')).toBe('main');
    const clones = fs.existsSync(path.join(home, 'clones'))
      ? fs
          .readdirSync(path.join(home, 'clones'))
          .filter((worker) => fs.existsSync(path.join(home, 'clones', worker, run.id)))
      : [];
    expect(clones).toEqual([]);

    const pruned = await runCliOnce(['prune', '--older-than', '1ms', '--json'], env);
    expect(pruned.code, pruned.stderr).toBe(0);
    const report = PruneReport.parse(JSON.parse(pruned.stdout));
    expect(report.runs).toEqual([expect.objectContaining({ id: run.id, removed: 'everything' })]);
    expect(report.freed.runs).toBe(1);
    expect(report.freed.bytes).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(home, 'runs', run.id))).toBe(false);
    expect((await runCliOnce(['status', run.id], env)).code).toBe(2);
    expect(fs.existsSync(path.join(workspace, 'feature_list.json'))).toBe(true);
    expect(git(workspace, 'log', '--oneline', 'main')).toMatch(/F-003/);
  }, 600_000);
});
