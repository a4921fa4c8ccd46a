/**
 * The app's dependency cache (handoff/app-deps.ts) on real files and real git: the key follows the committed
 * manifests only; a tree an install left is kept once and copied (never linked) into the next copy of the same
 * manifests; a changed lockfile misses; a `node_modules` that is a link, lacks npm's install record, holds a FIFO
 * or is too big is never kept, and a checkout with its own `node_modules` is never filled.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AppCopy, freshAppCopy } from '../../../handoff/app-copy.js';
import {
  captureDependencies,
  DEPENDENCY_CACHE_LIMITS,
  dependencyKey,
  fillClone,
  fillDependencies,
  useDependencyCache,
} from '../../../handoff/app-deps.js';
import { checkpoint, ensureRepo } from '../../../handoff/git.js';
import { tempDir } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const LOCK_V1 =
  '{"name":"app","lockfileVersion":3,"packages":{"node_modules/left-pad":{"version":"1.3.0"}}}\n';
const LOCK_V2 =
  '{"name":"app","lockfileVersion":3,"packages":{"node_modules/left-pad":{"version":"1.3.1"}}}\n';

/** A workspace whose head has a package.json and a lockfile; `commit` records the next change. */
async function appWorkspace(lock = LOCK_V1) {
  const temp = tempDir('ns-app-deps-');
  cleanups.push(temp.cleanup);
  const root = fs.realpathSync(temp.dir);
  const dir = path.join(root, 'ws');
  const repo = await ensureRepo(dir);
  const commit = async (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    return (await checkpoint(repo, {
      role: 'generator',
      runId: 'r1',
      session: 1,
      summary: 'change',
    })) as string;
  };
  await commit({ 'package.json': '{"name":"app"}\n', 'package-lock.json': lock, 'server.js': 'v1\n' });
  let copies = 0;
  const copy = () => freshAppCopy(repo, path.join(root, 'copies', String(++copies)));
  return { root, dir, repo, commit, copy, cache: path.join(root, 'cache') };
}

/** What an install in the box leaves: npm's record, a package with an executable and a link to it in `.bin`. */
function install(copyDir: string, version = '1.3.0'): void {
  const modules = path.join(copyDir, 'node_modules');
  fs.mkdirSync(path.join(modules, 'left-pad', 'bin'), { recursive: true });
  fs.mkdirSync(path.join(modules, '.bin'));
  fs.writeFileSync(path.join(modules, 'left-pad', 'package.json'), `{"version":"${version}"}\n`);
  fs.writeFileSync(path.join(modules, 'left-pad', 'bin', 'pad.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
  fs.symlinkSync('../left-pad/bin/pad.js', path.join(modules, '.bin', 'pad'));
  fs.writeFileSync(path.join(modules, '.package-lock.json'), '{"lockfileVersion":3}\n');
}

async function keyOf(copy: AppCopy): Promise<string> {
  const key = await dependencyKey(copy.repo, copy.sha);
  if (!key) throw new Error('expected a key');
  return key;
}

describe('the dependency cache key', () => {
  it('follows the committed manifests: the same across other changes, new when the lockfile changes', async () => {
    const ws = await appWorkspace();
    const first = await keyOf(await ws.copy());
    await ws.commit({ 'server.js': 'v2\n' });
    expect(await keyOf(await ws.copy())).toBe(first);
    await ws.commit({ 'package-lock.json': LOCK_V2 });
    const second = await keyOf(await ws.copy());
    expect(second).not.toBe(first);
    await ws.commit({ '.npmrc': 'omit=dev\n' });
    expect(await keyOf(await ws.copy())).not.toBe(second);
  });

  it('is null without a lockfile, and when the lockfile is a committed link', async () => {
    const ws = await appWorkspace();
    fs.rmSync(path.join(ws.dir, 'package-lock.json'));
    await ws.commit({});
    const noLock = await ws.copy();
    expect(await dependencyKey(noLock.repo, noLock.sha)).toBeNull();
    fs.symlinkSync('/etc/hostname', path.join(ws.dir, 'package-lock.json'));
    await ws.commit({});
    const linked = await ws.copy();
    expect(fs.lstatSync(path.join(linked.dir, 'package-lock.json')).isSymbolicLink()).toBe(true);
    expect(await dependencyKey(linked.repo, linked.sha)).toBeNull();
  });
});

describe('keeping and filling', () => {
  it('keeps the first install once and copies it, links as links and files unlinked, into the next copy', async () => {
    const ws = await appWorkspace();
    const first = await ws.copy();
    const key = await keyOf(first);
    expect(await fillDependencies(ws.cache, key, first.dir)).toEqual({ outcome: 'miss' });
    install(first.dir);
    expect(await captureDependencies(ws.cache, key, first.dir)).toEqual({ outcome: 'stored' });
    // Moved, not copied: the copy that installed has none left.
    expect(fs.existsSync(path.join(first.dir, 'node_modules'))).toBe(false);

    const second = await ws.copy();
    const filled = await fillDependencies(ws.cache, key, second.dir);
    expect(filled.outcome).toBe('hit');
    const modules = path.join(second.dir, 'node_modules');
    expect(fs.readlinkSync(path.join(modules, '.bin', 'pad'))).toBe('../left-pad/bin/pad.js');
    expect(fs.statSync(path.join(modules, 'left-pad', 'bin', 'pad.js')).mode & 0o777).toBe(0o755);
    // Newer than the checked-out lockfile: the examples' init.sh guard sees an installed tree and skips `npm ci`.
    const record = fs.statSync(path.join(modules, '.package-lock.json'));
    expect(record.mtimeMs).toBeGreaterThanOrEqual(
      fs.statSync(path.join(second.dir, 'package-lock.json')).mtimeMs,
    );
    execFileSync(
      'bash',
      ['-c', '[ package-lock.json -nt node_modules/.package-lock.json ] && exit 1 || exit 0'],
      { cwd: second.dir },
    );
    // A write by the app into its tree never reaches the kept one (a copy, not a hard link).
    const kept = path.join(ws.cache, key, 'node_modules', 'left-pad', 'package.json');
    fs.writeFileSync(path.join(modules, 'left-pad', 'package.json'), 'changed by the app\n');
    expect(fs.readFileSync(kept, 'utf8')).toBe('{"version":"1.3.0"}\n');
    expect(fs.statSync(kept).nlink).toBe(1);

    // A second install of the same key is not kept again: the first one stays.
    const third = await ws.copy();
    install(third.dir, '9.9.9');
    expect(await captureDependencies(ws.cache, key, third.dir)).toEqual({ outcome: 'present' });
    expect(fs.readFileSync(kept, 'utf8')).toBe('{"version":"1.3.0"}\n');
  });

  it('misses when the lockfile changed, and keeps the new install beside the old', async () => {
    const ws = await appWorkspace();
    const first = await ws.copy();
    const oldKey = await keyOf(first);
    install(first.dir);
    await captureDependencies(ws.cache, oldKey, first.dir);
    await ws.commit({ 'package-lock.json': LOCK_V2 });
    const second = await ws.copy();
    const newKey = await keyOf(second);
    expect(await fillDependencies(ws.cache, newKey, second.dir)).toEqual({ outcome: 'miss' });
    expect(fs.existsSync(path.join(second.dir, 'node_modules'))).toBe(false);
    install(second.dir, '1.3.1');
    expect(await captureDependencies(ws.cache, newKey, second.dir)).toEqual({ outcome: 'stored' });
    expect(
      fs
        .readdirSync(ws.cache)
        .filter((name) => !name.startsWith('.'))
        .sort(),
    ).toEqual([oldKey, newKey].sort());
  });

  it('keeps at most maxKeys keys, dropping the oldest', async () => {
    const ws = await appWorkspace();
    const limits = { ...DEPENDENCY_CACHE_LIMITS, maxKeys: 2 };
    const keys: string[] = [];
    for (const lock of [LOCK_V1, LOCK_V2, LOCK_V1.replace('1.3.0', '2.0.0')]) {
      await ws.commit({ 'package-lock.json': lock });
      const copy = await ws.copy();
      keys.push(await keyOf(copy));
      install(copy.dir);
      expect(await captureDependencies(ws.cache, keys.at(-1) as string, copy.dir, limits)).toEqual({
        outcome: 'stored',
      });
      // Distinct modification times, whatever the filesystem's resolution.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(
      fs
        .readdirSync(ws.cache)
        .filter((name) => !name.startsWith('.'))
        .sort(),
    ).toEqual(keys.slice(1).sort());
  });
});

describe('what is never kept or filled', () => {
  async function installedCopy(): Promise<{
    ws: Awaited<ReturnType<typeof appWorkspace>>;
    copy: AppCopy;
    key: string;
  }> {
    const ws = await appWorkspace();
    const copy = await ws.copy();
    return { ws, copy, key: await keyOf(copy) };
  }

  it('refuses a node_modules that is a link out of the copy, and reads nothing through it', async () => {
    const { ws, copy, key } = await installedCopy();
    install(path.join(ws.root, 'host'));
    fs.symlinkSync(path.join(ws.root, 'host', 'node_modules'), path.join(copy.dir, 'node_modules'));
    const kept = await captureDependencies(ws.cache, key, copy.dir);
    expect(kept).toEqual({ outcome: 'refused', reason: expect.stringMatching(/not a directory/) });
    expect(fs.existsSync(path.join(ws.cache, key))).toBe(false);
    // The linked tree is where it was.
    expect(fs.existsSync(path.join(ws.root, 'host', 'node_modules', '.package-lock.json'))).toBe(true);
  });

  it("refuses a tree without npm's install record (an install that did not finish)", async () => {
    const { ws, copy, key } = await installedCopy();
    install(copy.dir);
    fs.rmSync(path.join(copy.dir, 'node_modules', '.package-lock.json'));
    expect(await captureDependencies(ws.cache, key, copy.dir)).toEqual({
      outcome: 'refused',
      reason: expect.stringMatching(/no \.package-lock\.json/),
    });
  });

  it('refuses a tree holding a FIFO, or past the limits', async () => {
    const { ws, copy, key } = await installedCopy();
    install(copy.dir);
    const small = { ...DEPENDENCY_CACHE_LIMITS, maxBytes: 10 };
    expect(await captureDependencies(ws.cache, key, copy.dir, small)).toEqual({
      outcome: 'refused',
      reason: expect.stringMatching(/more than 10 bytes/),
    });
    const few = { ...DEPENDENCY_CACHE_LIMITS, maxEntries: 3 };
    expect((await captureDependencies(ws.cache, key, copy.dir, few)).outcome).toBe('refused');
    execFileSync('mkfifo', [path.join(copy.dir, 'node_modules', 'left-pad', 'pipe')]);
    expect(await captureDependencies(ws.cache, key, copy.dir)).toEqual({
      outcome: 'refused',
      reason: 'left-pad/pipe is not a file, directory or link',
    });
    expect(fs.existsSync(path.join(ws.cache, key))).toBe(false);
  });

  it('never fills a checkout that has its own node_modules, a committed link included', async () => {
    const ws = await appWorkspace();
    const first = await ws.copy();
    const key = await keyOf(first);
    install(first.dir);
    await captureDependencies(ws.cache, key, first.dir);
    const target = path.join(ws.root, 'target');
    fs.mkdirSync(target);
    fs.symlinkSync(target, path.join(ws.dir, 'node_modules'));
    await ws.commit({});
    const linked = await ws.copy();
    expect(fs.lstatSync(path.join(linked.dir, 'node_modules')).isSymbolicLink()).toBe(true);
    expect(await keyOf(linked)).toBe(key);
    expect(await fillDependencies(ws.cache, key, linked.dir)).toEqual({
      outcome: 'refused',
      reason: 'the checkout has its own node_modules',
    });
    expect(fs.readdirSync(target)).toEqual([]);
  });
});

describe('useDependencyCache', () => {
  it('fills nothing and keeps nothing for a commit without a lockfile', async () => {
    const ws = await appWorkspace();
    fs.rmSync(path.join(ws.dir, 'package-lock.json'));
    await ws.commit({});
    const copy = await ws.copy();
    const used = await useDependencyCache(copy, ws.cache);
    expect(used.fill).toBeNull();
    install(copy.dir);
    await used.keep();
    expect(fs.existsSync(ws.cache)).toBe(false);
  });

  it('keeps what a missed copy installed, and the next copy is filled from it without keeping again', async () => {
    const ws = await appWorkspace();
    const first = await ws.copy();
    const missed = await useDependencyCache(first, ws.cache);
    expect(missed.fill).toEqual({ outcome: 'miss' });
    install(first.dir);
    await missed.keep();
    const second = await ws.copy();
    const hit = await useDependencyCache(second, ws.cache);
    expect(hit.fill?.outcome).toBe('hit');
    await hit.keep();
    // Keeping after a hit leaves the copy's tree alone (it came from the cache).
    expect(fs.existsSync(path.join(second.dir, 'node_modules', '.package-lock.json'))).toBe(true);
  });
});

describe('a clone a generator works in', () => {
  /** A workspace whose kept tree exists in the cache (an app copy installed and stopped). */
  async function withKeptTree(ignore: boolean) {
    const ws = await appWorkspace();
    // Harness commits add `node_modules/` to .gitignore (handoff/gitignore.ts) unless the workspace re-includes it.
    await ws.commit({ '.gitignore': ignore ? 'node_modules/\n' : '!node_modules/\n' });
    const copy = await ws.copy();
    install(copy.dir);
    expect(await captureDependencies(ws.cache, await keyOf(copy), copy.dir)).toEqual({ outcome: 'stored' });
    return ws;
  }

  it('is filled from the kept tree of its head, and git sees nothing to commit', async () => {
    const ws = await withKeptTree(true);
    expect((await fillClone(ws.repo, ws.cache))?.outcome).toBe('hit');
    expect(fs.readlinkSync(path.join(ws.dir, 'node_modules', '.bin', 'pad'))).toBe('../left-pad/bin/pad.js');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: ws.dir, encoding: 'utf8' })).toBe('');
    // Filled once: a clone with a tree keeps its own (a generator may have installed more).
    fs.writeFileSync(path.join(ws.dir, 'node_modules', 'left-pad', 'package.json'), 'installed here\n');
    expect(await fillClone(ws.repo, ws.cache)).toBeNull();
    expect(fs.readFileSync(path.join(ws.dir, 'node_modules', 'left-pad', 'package.json'), 'utf8')).toBe(
      'installed here\n',
    );
  });

  it('is not filled where the workspace re-includes node_modules (the tree would be committed)', async () => {
    const ws = await withKeptTree(false);
    expect(await fillClone(ws.repo, ws.cache)).toBeNull();
    expect(fs.existsSync(path.join(ws.dir, 'node_modules'))).toBe(false);
  });

  it('misses when its lockfile has no kept tree', async () => {
    const ws = await withKeptTree(true);
    await ws.commit({ 'package-lock.json': LOCK_V2 });
    expect(await fillClone(ws.repo, ws.cache)).toEqual({ outcome: 'miss' });
    expect(fs.existsSync(path.join(ws.dir, 'node_modules'))).toBe(false);
  });
});
