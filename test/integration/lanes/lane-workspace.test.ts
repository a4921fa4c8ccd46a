import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpoint, runGit } from '../../../handoff/git.js';
import type { RunRecord } from '../../../orchestrator/run/index.js';
import { publishLane, refreshLane, syncLane } from '../../../workers/lane-workspace.js';
import { cleanUpRepos, repoWith, write } from './git-fixture.js';

// A lane's clone as a session gets it: the session starts at the head the sync reports, with nothing left over, so
// it does not read HEAD and roll back again (RoleSessionInput.startHead). Real git, a local run's workspace as origin.
cleanUpRepos();
const dataDirs: string[] = [];
afterEach(() => {
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A local run on `workspace` and a worker's data dir (only the run's id and workspace matter to a lane's sync). */
function localRun(workspace: string) {
  const run = { id: 'r-test', workspace: { kind: 'local', path: workspace } } as unknown as RunRecord;
  const context = { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ns-lane-data-')), workerId: 'w-test' };
  dataDirs.push(context.dataDir);
  return { run, context };
}

describe("a lane's clone, synced for a session", () => {
  it('drops what a crashed session left, merges the run branch in, and reports the head it ends at', async () => {
    const origin = await repoWith({ 'app.js': 'base\n', '.gitignore': 'node_modules/\n' });
    const branch = 'nightshift/r-test/lane-1-F-001';
    await runGit(origin, ['branch', branch]);
    const { run, context } = localRun(origin.dir);
    const lane = { lane: 1, branch, featureId: 'F-001' };

    const first = await syncLane(context, run, lane);
    expect(first.runBranch).toBe('main');
    expect(first.head).toBe((await runGit(origin, ['rev-parse', 'main'])).trim());
    // A session died here: a tracked file changed, one staged, one untracked; an ignored one is kept.
    write(first.repo, {
      'app.js': 'half-written\n',
      'staged.js': 'staged\n',
      'node_modules/kept.js': 'kept\n',
    });
    await runGit(first.repo, ['add', 'staged.js']);
    write(first.repo, { 'junk.txt': 'left over\n' });
    // Meanwhile the run branch moved on.
    write(origin, { 'merged.js': 'from another lane\n' });
    await checkpoint(origin, { role: 'merge', runId: 'r-test', session: 2, summary: 'another lane' });

    const synced = await syncLane(context, run, lane);
    const head = await refreshLane(run, synced, lane, 3);
    expect(head).toBe((await runGit(synced.repo, ['rev-parse', 'HEAD'])).trim());
    expect(head).not.toBe(synced.head);
    expect((await runGit(synced.repo, ['status', '--porcelain'])).trim()).toBe('');
    expect(fs.readFileSync(path.join(synced.repo.dir, 'app.js'), 'utf8')).toBe('base\n');
    expect(fs.existsSync(path.join(synced.repo.dir, 'junk.txt'))).toBe(false);
    expect(fs.existsSync(path.join(synced.repo.dir, 'staged.js'))).toBe(false);
    expect(fs.existsSync(path.join(synced.repo.dir, 'merged.js'))).toBe(true);
    expect(fs.existsSync(path.join(synced.repo.dir, 'node_modules', 'kept.js'))).toBe(true);

    // The session pushes the lane; with nothing new on the run branch, the next session starts at the pushed head.
    await publishLane(context, run, synced.repo, branch);
    const again = await syncLane(context, run, lane);
    expect(again.head).toBe(head);
    expect(await refreshLane(run, again, lane, 4)).toBe(head);
  });

  it('a run branch that conflicts with the lane is left for the merge queue: the head and a clean tree stay', async () => {
    const origin = await repoWith({ 'app.js': 'base\n' });
    const branch = 'nightshift/r-test/lane-2-F-002';
    await runGit(origin, ['checkout', '-q', '-b', branch]);
    write(origin, { 'app.js': 'the lane\n' });
    const laneHead = await checkpoint(origin, {
      role: 'generator',
      runId: 'r-test',
      session: 1,
      summary: 'lane',
    });
    await runGit(origin, ['checkout', '-q', 'main']);
    write(origin, { 'app.js': 'the run branch\n' });
    await checkpoint(origin, { role: 'merge', runId: 'r-test', session: 2, summary: 'another lane' });
    const { run, context } = localRun(origin.dir);
    const lane = { lane: 2, branch, featureId: 'F-002' };

    const synced = await syncLane(context, run, lane);
    expect(synced.head).toBe(laneHead);
    expect(await refreshLane(run, synced, lane, 3)).toBe(laneHead);
    expect((await runGit(synced.repo, ['rev-parse', 'HEAD'])).trim()).toBe(laneHead);
    expect((await runGit(synced.repo, ['status', '--porcelain'])).trim()).toBe('');
    expect(fs.readFileSync(path.join(synced.repo.dir, 'app.js'), 'utf8')).toBe('the lane\n');
  });
});
