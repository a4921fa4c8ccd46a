import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliActor } from '../../../cli/steer.js';
import { formatFeatureList } from '../../../handoff/feature-list.js';
import { head, runGit, type WorkspaceRepo } from '../../../handoff/git.js';
import { createWorkspace } from '../../../handoff/workspace.js';
import { RunConfig } from '../../../orchestrator/config.js';
import { type RunRecord, RunStore } from '../../../orchestrator/run/index.js';
import { demoPolicy } from '../../../testkit/policies/demo.js';
import { TODO_FEATURES } from '../../../testkit/policies/todo-features.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { connect } from '../orchestrator/redis-helpers.js';
import { cliEnv, deleteKeys, runCli, tempDir, uniquePrefix } from './helpers.js';

// `nightshift add` and a reopen as a person uses them: the real CLI process, real Redis, real git, the scripted
// feature writer over the Anthropic SDK. A done run (two todo features passing, no worker) gets a feature written
// from a person's words, validated, appended to the store and — the run being at rest — to the workspace's list in a
// harness commit, and goes back to building with the new feature's session queued; bad words, a writer that never
// gets its entry right and a cancelled run are refused with a clear error, and nothing changes.
const MODEL = 'anthropic:scripted';
let server: ModelServer;
let redis: Redis;
let store: RunStore;
let prefix: string;
let home: string;
let env: NodeJS.ProcessEnv;
let run: RunRecord;
let repo: WorkspaceRepo;

beforeAll(async () => {
  server = await startModelServer({ policy: demoPolicy });
  redis = connect();
  prefix = uniquePrefix();
  store = new RunStore(redis, { prefix });
  home = fs.realpathSync(tempDir('add'));
  env = cliEnv(home, prefix, {
    ANTHROPIC_API_KEY: 'sk-ant-scripted-000000',
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
  });
  const spec = path.join(home, 'todo.md');
  fs.copyFileSync(path.resolve(import.meta.dirname, '../../../examples/todo/app_spec.md'), spec);
  const dir = path.join(home, 'todo');
  repo = (await createWorkspace({ dir, specPath: spec })).repo;
  const features = TODO_FEATURES.slice(0, 2).map(({ category, description, steps }, index) => ({
    id: `F-00${index + 1}`,
    category,
    description,
    steps,
    passes: true,
  }));
  fs.writeFileSync(path.join(dir, 'feature_list.json'), formatFeatureList(features));
  await runGit(repo, ['add', '-A']);
  await runGit(repo, ['commit', '-q', '-m', 'the feature list, both passing']);
  const config = RunConfig.parse({
    models: { initializer: MODEL, generator: MODEL, evaluator: MODEL },
    prices: { [MODEL]: { inputPerMTok: 3, outputPerMTok: 15 } },
  });
  run = await store.createRun({
    spec: { path: spec, name: 'todo' },
    workspace: { kind: 'local', path: dir },
    config,
  });
  await store.replaceFeatures(run.id, features);
  await store.setStatus(run.id, 'building');
  await store.setStatus(run.id, 'done');
});

afterAll(async () => {
  await server.close();
  await deleteKeys(redis, prefix);
  await store.close();
  redis.disconnect();
  fs.rmSync(home, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, { env, cwd: home });
const listOnDisk = () => JSON.parse(fs.readFileSync(path.join(repo.dir, 'feature_list.json'), 'utf8'));
/** What must not change when an add is refused. */
const snapshot = async () => ({
  features: await store.listFeatures(run.id),
  events: await store.eventCount(run.id),
  status: (await store.getRun(run.id)).status,
  head: await head(repo),
  list: listOnDisk(),
});

describe('nightshift add', () => {
  it('refuses empty words and a writer that never gets its entry right, changing nothing', async () => {
    const before = await snapshot();
    const empty = await cli('add', run.id, '   ');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('Invalid feature description: the text');
    expect(empty.stderr).toContain('nothing changed');
    const invalid = await cli('add', run.id, 'Something the app cannot do [scripted:invalid]');
    expect(invalid.code, invalid.stderr).toBe(1);
    expect(invalid.stderr).toContain(
      'No feature was added: the feature was refused 3 times; last problems: steps: needs at least one step',
    );
    expect(await snapshot()).toEqual(before);
  }, 60_000);

  it('writes the feature from a person’s words, appends it everywhere and the done run builds again', async () => {
    const added = await cli('add', run.id, 'Let people tick a todo off with its checkbox [scripted:sloppy]');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('add: the harness refused the entry; the writer is revising it');
    const complete = TODO_FEATURES.find((feature) => feature.check === 'complete');
    expect(added.stdout).toContain(
      `F-003 added to ${run.id}: ${complete?.description} (depends on F-001, F-002)\n  1. ${complete?.steps[0]}`,
    );
    expect(added.stdout).toContain(
      'run building.\nNote: no worker is connected: start one with `nightshift worker`',
    );
    const stored = (await store.listFeatures(run.id)).find((feature) => feature.id === 'F-003');
    expect(stored).toMatchObject({ passes: false, depends_on: ['F-001', 'F-002'], position: 2 });
    // The run was at rest: the workspace's list has it, committed by the harness.
    expect(
      listOnDisk().map((feature: { id: string; passes: boolean }) => [feature.id, feature.passes]),
    ).toEqual([
      ['F-001', true],
      ['F-002', true],
      ['F-003', false],
    ]);
    expect(await runGit(repo, ['log', '-1', '--format=%s'])).toContain(
      'nightshift(harness): feature list: F-003 added by a person',
    );
    const events = (await store.readEvents(run.id, { count: 1000 })).map(({ event }) => event);
    const addedEvent = events.find((event) => event.type === 'feature.added');
    expect(addedEvent).toMatchObject({
      featureId: 'F-003',
      by: cliActor(env),
      text: 'Let people tick a todo off with its checkbox [scripted:sloppy]',
      dependsOn: ['F-001', 'F-002'],
      refusals: 1,
    });
    expect(events.filter((event) => event.type === 'run.status').map((event) => event.status)).toEqual([
      'building',
      'done',
      'building',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'session.queued', role: 'generator', featureIds: ['F-003'] });
    expect((await store.getRun(run.id)).counters.costUsd).toBeGreaterThan(0);
    const logs = await cli('logs', run.id);
    expect(logs.stdout).toContain(
      `F-003 added by ${cliActor(env)}: ${complete?.description} (depends on F-001, F-002)`,
    );
  }, 60_000);

  it('a reopen reaches the workspace list at once when the run is at rest', async () => {
    const paused = await cli('pause', run.id);
    expect(paused.code, paused.stderr).toBe(0);
    const reopened = await cli('reopen', run.id, 'F-001', '--reason', 'the checkbox hides the text');
    expect(reopened.code, reopened.stderr).toBe(0);
    expect(listOnDisk()[0]).toMatchObject({ id: 'F-001', passes: false });
    expect(await runGit(repo, ['log', '-1', '--format=%s'])).toContain('feature list: F-001 reopened');
  }, 60_000);

  it('refuses a cancelled run', async () => {
    expect((await cli('cancel', run.id)).code).toBe(0);
    const before = await snapshot();
    const refused = await cli('add', run.id, 'A dark mode toggle');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `Cannot add a feature to run ${run.id}: the run is cancelled and starts no more sessions; nothing changed.`,
    );
    expect(await snapshot()).toEqual(before);
  }, 60_000);
});
