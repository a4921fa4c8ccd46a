/**
 * Run names and the `runs` filters through the real CLI (child processes, real Redis, real git): a run is called by
 * `--name`, else by its spec's `# title`, else by the spec's file name; `runs`, `status` and `status --json` show it;
 * `runs --status … --workspace …` lists only the runs asked for.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerAdminCommands } from '../../../cli/admin.js';
import { RunStatusJson } from '../../../cli/status.js';
import { connect, REDIS_URL } from '../orchestrator/redis-helpers.js';
import { cliEnv, deleteKeys, runCli, runInProcess, tempDir, uniquePrefix } from './helpers.js';

// Each case starts CLI processes (node + tsx): seconds each on a busy machine.
vi.setConfig({ testTimeout: 180_000 });

let redis: Redis;
let prefix: string;
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  redis = connect();
  prefix = uniquePrefix();
  root = fs.realpathSync(tempDir('run-names'));
  env = cliEnv(path.join(root, 'home'), prefix, {
    REDIS_URL,
    ANTHROPIC_API_KEY: 'sk-ant-placeholder-for-names',
    NIGHTSHIFT_PREFLIGHT_REQUEST: '0',
  });
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
  fs.rmSync(root, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli(args, { env, cwd: root });
/** The admin commands in this process (same Redis and prefix): cheaper than a process where one proves nothing more. */
const admin = (args: string[]) =>
  runInProcess([registerAdminCommands], args, { cwd: () => root, env, redis: { defaultUrl: REDIS_URL } });
const spec = (name: string, text: string) => {
  const file = path.join(root, name);
  fs.writeFileSync(file, text);
  return file;
};
/** Registers a run (no worker needed) and returns its status document. */
async function start(specFile: string, workspace: string, ...extra: string[]): Promise<RunStatusJson> {
  const out = await cli([
    'run',
    specFile,
    '--workspace',
    path.join(root, workspace),
    '--detach',
    '--json',
    ...extra,
  ]);
  expect(out.code, out.stderr).toBe(0);
  return RunStatusJson.parse(JSON.parse(out.stdout));
}

describe('run names', () => {
  it('come from --name, else the spec title, else the file name; runs and status show them', async () => {
    const named = await start(spec('a.md', '# Todo app\n\nTodos.\n'), 'ws-a', '--name', 'Todo, night 3');
    // A heading inside a code block is not the title; the first level-1 heading outside one is.
    const titled = await start(
      spec('b.md', '```\n# not this\n```\n\n#   Recipe box   \n\nRecipes.\n'),
      'ws-b',
    );
    const untitled = await start(spec('kanban-notes.md', 'A kanban board with three columns.\n'), 'ws-c');
    expect([named.name, titled.name, untitled.name]).toEqual(['Todo, night 3', 'Recipe box', 'kanban-notes']);

    const table = await cli(['runs']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^RUN\s+NAME\s+STATUS\s+FEATURES\s+SESSIONS\s+COST\s+STARTED$/);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(0, 2))).toEqual([
      [untitled.id, 'kanban-notes'],
      [titled.id, 'Recipe box'],
      [named.id, 'Todo, night 3'],
    ]);
    const status = await admin(['status', named.id]);
    expect(status.stdout).toMatch(new RegExp(`^run\\s+${named.id} {2}Todo, night 3 {2}\\(a\\.md\\)$`, 'm'));
  });

  it('--name must be one line: a bad one is refused before anything exists', async () => {
    const workspace = path.join(root, 'ws-bad-name');
    const out = await cli([
      'run',
      spec('d.md', '# D\n'),
      '--workspace',
      workspace,
      '--detach',
      '--name',
      'two\nlines',
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--name must be one line of 1 to 80 characters without control characters');
    expect(out.stderr).toContain('e.g. --name "Todo app, night 3"');
    expect(fs.existsSync(workspace)).toBe(false);
  });
});

describe('runs filters', () => {
  it('--status and --workspace list only the runs asked for; a misspelt status is named', async () => {
    const first = await start(spec('e.md', '# Filters\n'), 'ws-filter');
    const paused = await start(spec('f.md', '# Other\n'), 'ws-other');
    expect((await admin(['pause', paused.id])).code).toBe(0);

    const byWorkspace = await admin(['runs', '--json', '--workspace', 'ws-filter']);
    expect(byWorkspace.code, byWorkspace.stderr).toBe(0);
    expect((JSON.parse(byWorkspace.stdout) as RunStatusJson[]).map((run) => run.id)).toEqual([first.id]);

    const byStatus = await admin(['runs', '--json', '--status', 'paused,done']);
    expect((JSON.parse(byStatus.stdout) as RunStatusJson[]).map((run) => run.id)).toEqual([paused.id]);
    const both = await admin(['runs', '--status', 'paused', '--workspace', path.join(root, 'ws-filter')]);
    expect(both.stdout).toBe(
      'No runs match (`nightshift runs` without --status and --workspace lists them all).\n',
    );
    const active = await admin(['runs', '--json', '--status', 'active', '--workspace', './ws-filter/']);
    expect((JSON.parse(active.stdout) as RunStatusJson[]).map((run) => run.name)).toEqual(['Filters']);

    const typo = await cli(['runs', '--status', 'done,pasued']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'nightshift: --status takes run statuses separated by commas; "pasued" is not one (did you mean "paused"?).\n' +
        '  → e.g. --status done,incomplete; statuses: created, initializing, building, paused, done, incomplete, failed, cancelled, active, finished\n',
    );
  });
});
