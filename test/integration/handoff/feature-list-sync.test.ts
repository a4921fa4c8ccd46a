import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { syncFeatureList } from '../../../handoff/feature-list-sync.js';
import type { FeatureList } from '../../../handoff/formats.js';
import { ensureRepo, head, runGit } from '../../../handoff/git.js';
import { isolateGitConfig, tempDir } from './helpers.js';

// The workspace's feature_list.json brought in line with the run store on real git: appended features and reopened
// ones in one harness commit, nothing when the list agrees, nothing in a workspace without a list yet.
const restoreGit = isolateGitConfig();
afterAll(restoreGit);
const dirs: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of dirs.splice(0)) cleanup();
});

const entry = (n: number, passes: boolean) => ({
  id: `F-00${n}`,
  category: 'functional',
  description: `feature ${n}`,
  steps: [`step ${n}`],
  passes,
});

async function workspace(list?: FeatureList) {
  const { dir, cleanup } = tempDir('ns-sync-');
  dirs.push(cleanup);
  const repo = await ensureRepo(dir);
  fs.writeFileSync(path.join(dir, 'app.js'), 'app\n');
  if (list) fs.writeFileSync(path.join(dir, 'feature_list.json'), `${JSON.stringify(list, null, 2)}\n`);
  await runGit(repo, ['add', '-A']);
  await runGit(repo, ['commit', '-q', '-m', 'start']);
  return repo;
}

describe('syncing the feature list into a workspace', () => {
  it('appends the added features and sets the reopened ones failing, in one harness commit', async () => {
    const repo = await workspace([entry(1, true), entry(2, true)]);
    // Work in the tree that is not the list's stays out of the commit.
    fs.writeFileSync(path.join(repo.dir, 'app.js'), 'changed\n');
    const sync = {
      features: [entry(1, true), entry(2, true), { ...entry(3, false), depends_on: ['F-001'] }],
      failing: ['F-001'],
    };
    const outcome = await syncFeatureList(repo, sync, { runId: 'r-sync', session: 7 });
    expect(outcome).toMatchObject({ appended: ['F-003'], reopened: ['F-001'] });
    expect(outcome.sha).toBe(await head(repo));
    const list = JSON.parse(fs.readFileSync(path.join(repo.dir, 'feature_list.json'), 'utf8'));
    expect(list).toEqual([entry(1, false), entry(2, true), { ...entry(3, false), depends_on: ['F-001'] }]);
    const message = await runGit(repo, ['log', '-1', '--format=%B']);
    expect(message).toContain('nightshift(harness): feature list: F-003 added by a person; F-001 reopened');
    expect(message).toContain('Nightshift-Session: 7');
    expect((await runGit(repo, ['show', '--name-only', '--format=', 'HEAD'])).trim()).toBe(
      'feature_list.json',
    );
    expect((await runGit(repo, ['status', '--porcelain'])).trim()).toBe('M app.js');
    // Again: the list agrees, nothing to commit.
    expect(await syncFeatureList(repo, sync, { runId: 'r-sync', session: 8 })).toEqual({
      sha: null,
      appended: [],
      reopened: [],
    });
  });

  it('leaves a workspace without a feature list alone (the initializer writes it)', async () => {
    const repo = await workspace();
    const before = await head(repo);
    const sync = { features: [entry(1, false)], failing: [] };
    expect((await syncFeatureList(repo, sync, { runId: 'r-sync', session: 1 })).sha).toBeNull();
    expect(await head(repo)).toBe(before);
    expect(fs.existsSync(path.join(repo.dir, 'feature_list.json'))).toBe(false);
  });
});
