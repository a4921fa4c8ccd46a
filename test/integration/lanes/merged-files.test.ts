/**
 * The footprints' input (evaluation/affected-inputs.ts `mergedFiles`) on real git: the files each feature's queue
 * merges brought in. A merge reads only the merges since the last one on the same repository, so the answer must
 * equal a full read of the history: after more merges, and after the queue undid a merge.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergedFiles } from '../../../evaluation/affected-inputs.js';
import { checkpoint, head, openRepo, runGit, type WorkspaceRepo } from '../../../handoff/git.js';
import { cleanUpRepos, repoWith, write } from './git-fixture.js';

cleanUpRepos();

/** Feature `id` merged from a lane the way the queue does (`--no-ff`, its subject), with `files` written. */
async function queueMerge(repo: WorkspaceRepo, id: string, files: Record<string, string>): Promise<string> {
  await runGit(repo, ['checkout', '-q', '-b', `lane-${id}`]);
  write(repo, files);
  await checkpoint(repo, { role: 'generator', runId: 'r-test', session: 1, featureId: id, summary: id });
  await runGit(repo, ['checkout', '-q', 'main']);
  await runGit(repo, ['merge', '-q', '--no-ff', '-m', `nightshift(merge): ${id} from lane 1`, `lane-${id}`]);
  return (await head(repo)) as string;
}

/** What a repository that never asked before says: a clone of `repo` read from scratch. */
async function fromScratch(repo: WorkspaceRepo, at: string): Promise<Map<string, Set<string>>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-merged-files-'));
  try {
    const clone = openRepo(path.join(dir, 'clone'));
    await runGit(clone, ['clone', '-q', '--no-checkout', repo.dir, clone.dir], { cwd: dir });
    return await mergedFiles(clone, at);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const plain = (map: Map<string, Set<string>>) =>
  Object.fromEntries([...map].map(([id, files]) => [id, [...files].sort()]));

describe('the files of each queue merge', () => {
  it('reads the new merges only, and the whole history again once a merge was undone', async () => {
    const repo = await repoWith({ 'routes.js': '// routes\n' });
    await queueMerge(repo, 'F-001', { 'a.js': 'a\n', 'routes.js': '// routes\na\n' });
    const second = await queueMerge(repo, 'F-002', { 'b.js': 'b\n' });
    expect(plain(await mergedFiles(repo, second))).toEqual({
      'F-001': ['a.js', 'routes.js'],
      'F-002': ['b.js'],
    });
    const third = await queueMerge(repo, 'F-003', { 'c.js': 'c\n', 'routes.js': '// routes\na\nc\n' });
    const grown = await mergedFiles(repo, third);
    expect(plain(grown)).toEqual(plain(await fromScratch(repo, third)));
    expect(plain(grown)['F-003']).toEqual(['c.js', 'routes.js']);
    // The queue undoes F-003's merge (a red head) and merges F-004 instead: F-003 is not in the history any more.
    await runGit(repo, ['reset', '-q', '--hard', second]);
    const fourth = await queueMerge(repo, 'F-004', { 'd.js': 'd\n' });
    const afterUndo = await mergedFiles(repo, fourth);
    expect(plain(afterUndo)).toEqual({
      'F-001': ['a.js', 'routes.js'],
      'F-002': ['b.js'],
      'F-004': ['d.js'],
    });
    expect(plain(afterUndo)).toEqual(plain(await fromScratch(repo, fourth)));
    // Asking about an older head of the same history answers for that head.
    expect(Object.keys(plain(await mergedFiles(repo, second))).sort()).toEqual(['F-001', 'F-002']);
  });
});
