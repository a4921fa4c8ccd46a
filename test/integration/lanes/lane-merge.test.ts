import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpoint, runGit, type WorkspaceRepo } from '../../../handoff/git.js';
import { mergeAppended, mergeFeatureLists, mergeInto, undoMerge } from '../../../handoff/lane-merge.js';
import { keepBothSides } from '../../../testkit/policies/generator.js';

import { cleanUpRepos, repoWith, write } from './git-fixture.js';

// Lane merges on real git repositories: harness files merged by the harness, app conflicts reported or kept.
cleanUpRepos();

const list = (passes: boolean[]) =>
  `${JSON.stringify(
    passes.map((pass, i) => ({
      id: `F-00${i + 1}`,
      category: 'functional',
      description: `f${i}`,
      steps: ['s'],
      passes: pass,
    })),
    null,
    2,
  )}\n`;

async function onBranch(repo: WorkspaceRepo, branch: string, from: string, files: Record<string, string>) {
  await runGit(repo, ['checkout', '-q', '-b', branch, from]);
  write(repo, files);
  await checkpoint(repo, { role: 'generator', runId: 'r-test', session: 1, summary: branch });
}

describe('lane merges', () => {
  it('merges both sides of the progress log, the verdict log and the passes flags without a conflict', async () => {
    const repo = await repoWith({
      'progress.md': '# progress\n',
      '.nightshift/verdicts.jsonl': '{"v":0}\n',
      'feature_list.json': list([false, false]),
      'app.js': 'one\n',
    });
    await onBranch(repo, 'lane', 'main', {
      'progress.md': '# progress\nlane note\n',
      '.nightshift/verdicts.jsonl': '{"v":0}\n{"v":"lane"}\n',
      'feature_list.json': list([false, true]),
      'lane.js': 'lane\n',
    });
    await runGit(repo, ['checkout', '-q', 'main']);
    write(repo, {
      'progress.md': '# progress\nmain note\n',
      '.nightshift/verdicts.jsonl': '{"v":0}\n{"v":"main"}\n',
      'feature_list.json': list([true, false]),
    });
    await checkpoint(repo, { role: 'merge', runId: 'r-test', session: 2, summary: 'main moves' });
    const merged = await mergeInto(repo, 'lane', { message: 'merge lane' });
    expect(merged.kind).toBe('merged');
    expect(fs.readFileSync(path.join(repo.dir, 'progress.md'), 'utf8')).toBe(
      '# progress\nmain note\nlane note\n',
    );
    expect(fs.readFileSync(path.join(repo.dir, '.nightshift/verdicts.jsonl'), 'utf8')).toBe(
      '{"v":0}\n{"v":"main"}\n{"v":"lane"}\n',
    );
    expect(
      JSON.parse(fs.readFileSync(path.join(repo.dir, 'feature_list.json'), 'utf8')).map(
        (f: { passes: boolean }) => f.passes,
      ),
    ).toEqual([true, true]);
    expect(fs.existsSync(path.join(repo.dir, 'lane.js'))).toBe(true);
    // A merge commit: both parents kept.
    expect((await runGit(repo, ['rev-list', '--parents', '-n', '1', 'HEAD'])).trim().split(' ')).toHaveLength(
      3,
    );
  });

  it('an app conflict aborts the merge (the branch unchanged) or is committed with its markers for a generator', async () => {
    const repo = await repoWith({ 'app.js': 'a\n// marker\n' });
    await onBranch(repo, 'lane', 'main', { 'app.js': 'a\nlane\n// marker\n' });
    await runGit(repo, ['checkout', '-q', 'main']);
    write(repo, { 'app.js': 'a\nmain\n// marker\n' });
    const before = await checkpoint(repo, { role: 'merge', runId: 'r-test', session: 2, summary: 'main' });
    const refused = await mergeInto(repo, 'lane', { message: 'merge lane' });
    expect(refused).toEqual({ kind: 'conflict', files: ['app.js'], head: before, resolved: [] });
    expect((await runGit(repo, ['rev-parse', 'HEAD'])).trim()).toBe(before);
    expect((await runGit(repo, ['status', '--porcelain'])).trim()).toBe('');

    await runGit(repo, ['checkout', '-q', 'lane']);
    const kept = await mergeInto(repo, 'main', { message: 'main into lane', keepConflicts: true });
    expect(kept.kind).toBe('conflict');
    const text = fs.readFileSync(path.join(repo.dir, 'app.js'), 'utf8');
    expect(text).toContain('<<<<<<<');
    // What the scripted generator does with it: both registrations above the marker, once each.
    expect(keepBothSides(text)).toBe('a\nmain\nlane\n// marker\n');
    await undoMerge(repo, (await runGit(repo, ['rev-parse', 'HEAD~1'])).trim());
    expect(fs.readFileSync(path.join(repo.dir, 'app.js'), 'utf8')).toBe('a\nlane\n// marker\n');
  });

  it('merges appended lines once, and refuses feature lists that differ in more than the flags', () => {
    expect(mergeAppended('a\n', 'a\nb\n', 'a\nc\nb\n')).toBe('a\nb\nc\n');
    expect(mergeAppended('a\n', 'a\nb', 'a\nc\n')).toBe('a\nb\nc\n');
    expect(mergeFeatureLists(list([false]), list([false]), list([true]))).toBe(list([true]));
    const renamed = list([true]).replace('"f0"', '"renamed"');
    expect(mergeFeatureLists(list([false]), list([false]), renamed)).toBeUndefined();
    expect(mergeFeatureLists(list([false]), 'not json', list([true]))).toBeUndefined();
  });

  it('keeps a feature a person added on either side (once), with a pass either side recorded', () => {
    // The base has F-001; the run branch (ours) got F-002 appended, the lane (theirs) too and then passed it.
    expect(mergeFeatureLists(list([false]), list([false, false]), list([true, true]))).toBe(
      list([true, true]),
    );
    expect(mergeFeatureLists(list([false]), list([false]), list([false, false]))).toBe(list([false, false]));
    expect(mergeFeatureLists(list([false]), list([false, false]), list([false]))).toBe(list([false, false]));
    // Two different features under one id: a generator must look.
    const other = list([false, false]).replace('"f1"', '"something else"');
    expect(mergeFeatureLists(list([false]), list([false, false]), other)).toBeUndefined();
  });
});
