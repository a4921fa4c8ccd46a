import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpoint, runGit, type WorkspaceRepo } from '../../../handoff/git.js';
import { mergeInto } from '../../../handoff/lane-merge.js';
import { SandboxConfig } from '../../../orchestrator/config.js';
import { boxedLockfileRegenerator } from '../../../workers/lockfile-box.js';
import { cleanUpRepos, repoWith, write } from './git-fixture.js';

// Mechanical merges (issue 29) on real git repositories: which app-file conflicts the harness resolves by rule.
cleanUpRepos();

const read = (repo: WorkspaceRepo, file: string) => fs.readFileSync(path.join(repo.dir, file), 'utf8');

/** A `lane` branch with `laneFiles` and `main` moved on with `mainFiles`, `main` checked out. */
async function diverged(
  base: Record<string, string>,
  laneFiles: Record<string, string>,
  mainFiles: Record<string, string>,
): Promise<{ repo: WorkspaceRepo; before: string }> {
  const repo = await repoWith(base);
  await runGit(repo, ['checkout', '-q', '-b', 'lane']);
  write(repo, laneFiles);
  await checkpoint(repo, { role: 'generator', runId: 'r-test', session: 1, summary: 'lane' });
  await runGit(repo, ['checkout', '-q', 'main']);
  write(repo, mainFiles);
  const before = await checkpoint(repo, { role: 'merge', runId: 'r-test', session: 2, summary: 'main' });
  return { repo, before: before as string };
}

const routes = (...lines: string[]) =>
  ['const routes = [', ...lines, '];', 'export default routes;', ''].join('\n');

describe('mechanical merge rules', () => {
  it('lines both sides appended at the same place are both kept, the run branch first, in either direction', async () => {
    const { repo } = await diverged(
      { 'routes.js': routes("  '/home',") },
      { 'routes.js': routes("  '/home',", "  '/lane',"), 'lane.js': 'lane\n' },
      { 'routes.js': routes("  '/home',", "  '/main-1',", "  '/main-2',") },
    );
    const merged = await mergeInto(repo, 'lane', { message: 'lane into main', rules: { runBranch: 'ours' } });
    expect(merged).toMatchObject({ kind: 'merged', resolved: ['routes.js'] });
    expect(read(repo, 'routes.js')).toBe(routes("  '/home',", "  '/main-1',", "  '/main-2',", "  '/lane',"));
    expect(read(repo, 'lane.js')).toBe('lane\n');
    expect((await runGit(repo, ['status', '--porcelain'])).trim()).toBe('');

    // The run branch merged into a lane: the run branch is `theirs`, and still first.
    await runGit(repo, ['reset', '-q', '--hard', 'HEAD~1']);
    await runGit(repo, ['checkout', '-q', 'lane']);
    const intoLane = await mergeInto(repo, 'main', {
      message: 'main into lane',
      rules: { runBranch: 'theirs' },
    });
    expect(intoLane).toMatchObject({ kind: 'merged', resolved: ['routes.js'] });
    expect(read(repo, 'routes.js')).toBe(routes("  '/home',", "  '/main-1',", "  '/main-2',", "  '/lane',"));
  });

  it('an edit against an edit is not mechanical: the merge is aborted and the file named for a model', async () => {
    const { repo, before } = await diverged(
      { 'routes.js': routes("  '/home',", "  '/about',") },
      { 'routes.js': routes("  '/home',", "  '/about-us',") },
      { 'routes.js': routes("  '/home',", "  '/about-me',") },
    );
    const attempt = await mergeInto(repo, 'lane', {
      message: 'lane into main',
      rules: { runBranch: 'ours' },
    });
    expect(attempt).toEqual({ kind: 'conflict', files: ['routes.js'], head: before, resolved: [] });
    expect((await runGit(repo, ['status', '--porcelain'])).trim()).toBe('');
    // One side deleting a line the other kept and appended after: a deletion, not an addition.
    const { repo: second } = await diverged(
      { 'menu.txt': 'a\nb\n' },
      { 'menu.txt': 'a\nb\nlane\n' },
      { 'menu.txt': 'a\nmain\n' },
    );
    const deleted = await mergeInto(second, 'lane', { message: 'm', rules: { runBranch: 'ours' } });
    expect(deleted).toMatchObject({ kind: 'conflict', files: ['menu.txt'] });
  });

  it('JSON manifests merge key by key; one key changed two ways is not mechanical', async () => {
    const manifest = (value: object) => `${JSON.stringify(value, null, 2)}\n`;
    const base = {
      name: 'app',
      version: '1.0.0',
      dependencies: { a: '^1.0.0' },
      scripts: { start: 'node app.js' },
    };
    const { repo } = await diverged(
      { 'package.json': manifest(base), 'config/site.json': manifest({ title: 'T' }) },
      {
        'package.json': manifest({ ...base, dependencies: { a: '^1.0.0', lane: '^2.0.0' } }),
        'config/site.json': manifest({ title: 'T', lane: true }),
      },
      {
        'package.json': manifest({
          ...base,
          dependencies: { a: '^1.0.0', main: '^3.0.0' },
          scripts: { start: 'node app.js', test: 'x' },
        }),
        'config/site.json': manifest({ title: 'T', main: true }),
      },
    );
    const merged = await mergeInto(repo, 'lane', { message: 'm', rules: { runBranch: 'ours' } });
    expect(merged).toMatchObject({ kind: 'merged' });
    expect(merged.resolved.sort()).toEqual(['config/site.json', 'package.json']);
    expect(read(repo, 'package.json')).toBe(
      manifest({
        name: 'app',
        version: '1.0.0',
        dependencies: { a: '^1.0.0', main: '^3.0.0', lane: '^2.0.0' },
        scripts: { start: 'node app.js', test: 'x' },
      }),
    );
    expect(JSON.parse(read(repo, 'config/site.json'))).toEqual({ title: 'T', main: true, lane: true });

    const { repo: clash } = await diverged(
      { 'package.json': manifest(base) },
      { 'package.json': manifest({ ...base, version: '1.1.0' }) },
      { 'package.json': manifest({ ...base, version: '2.0.0' }) },
    );
    const refused = await mergeInto(clash, 'lane', { message: 'm', rules: { runBranch: 'ours' } });
    expect(refused).toMatchObject({ kind: 'conflict', files: ['package.json'] });
  });

  it('a lockfile is regenerated in the box from the merged manifest, and left to a model without a regenerator', async () => {
    const pkg = (dir: string) => ({
      [`pkgs/${dir}/package.json`]: `{ "name": "${dir}", "version": "1.0.0" }\n`,
    });
    const base = {
      ...pkg('one'),
      ...pkg('two'),
      'package.json': manifest({ name: 'app', version: '1.0.0' }),
    };
    const repo = await repoWith(base);
    await npmLock(repo);
    await checkpoint(repo, { role: 'harness', runId: 'r-test', session: 0, summary: 'lock' });
    await runGit(repo, ['checkout', '-q', '-b', 'lane']);
    write(repo, {
      'package.json': manifest({ name: 'app', version: '1.0.0', dependencies: { one: 'file:pkgs/one' } }),
    });
    await npmLock(repo);
    await checkpoint(repo, { role: 'generator', runId: 'r-test', session: 1, summary: 'lane' });
    await runGit(repo, ['checkout', '-q', 'main']);
    write(repo, {
      'package.json': manifest({ name: 'app', version: '1.0.0', dependencies: { two: 'file:pkgs/two' } }),
    });
    await npmLock(repo);
    const before = await checkpoint(repo, { role: 'merge', runId: 'r-test', session: 2, summary: 'main' });

    const without = await mergeInto(repo, 'lane', { message: 'm', rules: { runBranch: 'ours' } });
    expect(without).toMatchObject({ kind: 'conflict', files: ['package-lock.json'], head: before });

    const regenerateLockfile = boxedLockfileRegenerator({
      runId: 'r-test',
      session: 3,
      dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ns-merge-rules-data-')),
      sandbox: SandboxConfig.parse({}),
    });
    const merged = await mergeInto(repo, 'lane', {
      message: 'm',
      rules: { runBranch: 'ours', regenerateLockfile },
    });
    expect(merged).toMatchObject({ kind: 'merged' });
    expect(merged.resolved.sort()).toEqual(['package-lock.json', 'package.json']);
    const lock = JSON.parse(read(repo, 'package-lock.json'));
    expect(Object.keys(lock.packages['']?.dependencies ?? {}).sort()).toEqual(['one', 'two']);
    expect(read(repo, 'package-lock.json')).not.toContain('<<<<<<<');
  }, 120_000);
});

function manifest(value: object): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The test's own lockfile, written by npm on the host from the test's fixed manifests (nothing of a workspace). */
async function npmLock(repo: WorkspaceRepo): Promise<void> {
  const { execFileSync } = await import('node:child_process');
  execFileSync(
    'npm',
    ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', '--offline'],
    {
      cwd: repo.dir,
      stdio: 'ignore',
    },
  );
}
