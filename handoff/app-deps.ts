/**
 * The app's dependency cache (run config `app.dependencyCache`, on by default). Every evaluation, replay and merge
 * step starts the app from a fresh copy of the workspace (app-copy.ts), so its init.sh installs the dependencies
 * again in the box: 15–25 s of `npm ci` per start for the meal planner on a loaded machine. Here the first install
 * is kept: when an app that started is stopped (its whole box gone, so nothing from the workspace runs any more),
 * the copy's `node_modules` moves into `<data>/runs/<run>/app-deps/<key>/`, and every later copy of the same
 * manifests gets a copy of that tree before init.sh runs. An init.sh that installs only when `node_modules` is
 * missing or stale (the examples' `npm ci` guard) then skips the install; `npm install` finds it satisfied.
 *
 * What keeps it safe:
 * - the key is the git blob ids of the head's `package.json`, `package-lock.json` and `.npmrc` (read by git, never
 *   through the checkout's files): a changed lockfile is a different entry, and no lockfile means no cache;
 * - a tree is taken only from a copy whose app started and only once its box has stopped; it must be a real
 *   directory holding npm's record of a finished install, with nothing but directories, regular files and links in
 *   it (within size limits). Links are kept as links and never followed, by the walk or by the copy;
 * - the cache is per run (inside the run's data dir, hidden from every box) and written only by the harness;
 *   packages' install scripts ran in the box that produced the tree, and a tree is only ever handed back to boxes of
 *   the same run, never run or read on the host;
 * - a copy whose checkout has a `node_modules` of its own (committed, or a link) is left alone.
 *
 * The harness's clones that generators work in (a lane's, a remote run's; {@link fillClone}) get the tree the same
 * way when they have none and git ignores `node_modules` there, so a lane's first install fetches nothing either
 * and the tree can never be committed.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { runDataDir } from '../core/paths.js';
import { askGit, runGit, type WorkspaceRepo } from './git.js';
import { lstatOrNull } from './safe-fs-walk.js';

const log = moduleLogger('handoff/app-deps');

/** The files, at the copy's root, whose content decides what an install produces: the cache key's inputs. */
export const DEPENDENCY_FILES = ['package.json', 'package-lock.json', '.npmrc'] as const;
/** The installed tree the cache keeps, at the copy's root. */
export const DEPENDENCY_DIR = 'node_modules';
/** npm's record of a finished install inside the tree: a tree without it is not kept. */
export const INSTALL_RECORD = '.package-lock.json';

/** Bounds on what is kept: a tree past them is refused (the next copy installs as without the cache). */
export interface DependencyCacheLimits {
  /** Largest total size of the tree's regular files. */
  maxBytes: number;
  /** Most entries (files, directories, links) in the tree. */
  maxEntries: number;
  /** Most keys kept per run; the oldest go first (a run rarely changes its lockfile more than a few times). */
  maxKeys: number;
}

/** The limits in use unless a caller passes others: 2 GiB, 300 000 entries, 3 keys. */
export const DEPENDENCY_CACHE_LIMITS: DependencyCacheLimits = {
  maxBytes: 2 * 1024 ** 3,
  maxEntries: 300_000,
  maxKeys: 3,
};

/** The cache directory of one run: `<data>/runs/<run>/app-deps`. */
export function dependencyCacheDir(home: string, runId: string): string {
  return path.join(runDataDir(home, runId), 'app-deps');
}

/** Git modes of a regular file: anything else in a manifest's place (a link, a submodule) means no cache. */
const REGULAR_MODES = new Set(['100644', '100755']);

/**
 * The cache key of a commit: a hash of the blob ids git records for {@link DEPENDENCY_FILES} at its root, or null
 * when it has no `package-lock.json` (no reproducible install to keep) or one of them is not a regular file.
 */
export async function dependencyKey(repo: WorkspaceRepo, sha: string): Promise<string | null> {
  const listing = await runGit(repo, ['ls-tree', '-z', sha, '--', ...DEPENDENCY_FILES]);
  const entries = listing.split('\0').filter((line) => line !== '');
  const rows: string[] = [];
  for (const entry of entries) {
    const [meta = '', name = ''] = entry.split('\t');
    const [mode = '', , blob = ''] = meta.split(' ');
    if (!REGULAR_MODES.has(mode)) return null;
    rows.push(`${name} ${blob}`);
  }
  if (!rows.some((row) => row.startsWith('package-lock.json '))) return null;
  return createHash('sha256').update(rows.sort().join('\n')).digest('hex').slice(0, 32);
}

/** What {@link fillDependencies} did: copied the kept tree, found none, or would not touch the copy. */
export type DependencyFill =
  | { outcome: 'hit'; ms: number }
  | { outcome: 'miss' }
  | { outcome: 'refused'; reason: string };

/**
 * Copies the tree kept under `key` into `<copyDir>/node_modules` before the app starts (a miss when there is none
 * or the copy fails midway: then the copy is left without it, as without the cache). Regular files are copied
 * (a reflink where the filesystem has them), never hard-linked: the app may write into its tree, and that must
 * not reach the kept one. Links are copied as they are.
 */
export async function fillDependencies(
  cacheDir: string,
  key: string,
  copyDir: string,
): Promise<DependencyFill> {
  const source = path.join(cacheDir, key, DEPENDENCY_DIR);
  if (!(await lstatOrNull(source))?.isDirectory()) return { outcome: 'miss' };
  const target = path.join(copyDir, DEPENDENCY_DIR);
  if (await lstatOrNull(target)) {
    return { outcome: 'refused', reason: `the checkout has its own ${DEPENDENCY_DIR}` };
  }
  const started = performance.now();
  try {
    await cp(source, target, {
      recursive: true,
      verbatimSymlinks: true,
      errorOnExist: true,
      force: false,
      mode: constants.COPYFILE_FICLONE,
    });
  } catch (error) {
    // Evicted by another process while copying, or the disk is full: the app installs as if nothing was kept.
    log.warn({ err: error, key }, 'could not copy the kept dependencies; the app installs its own');
    await rm(target, { recursive: true, force: true });
    return { outcome: 'miss' };
  }
  return { outcome: 'hit', ms: Math.round(performance.now() - started) };
}

/** What {@link captureDependencies} did: kept the tree, found one already kept, or refused it (with why). */
export type DependencyCapture =
  | { outcome: 'stored' }
  | { outcome: 'present' }
  | { outcome: 'refused'; reason: string };

/**
 * Keeps `<copyDir>/node_modules` under `key` (moved, not copied: the copy is about to be removed). Call it only
 * once the app's box has stopped and only for an app that started: nothing may change the tree while it is checked.
 */
export async function captureDependencies(
  cacheDir: string,
  key: string,
  copyDir: string,
  limits: DependencyCacheLimits = DEPENDENCY_CACHE_LIMITS,
): Promise<DependencyCapture> {
  if (await lstatOrNull(path.join(cacheDir, key))) return { outcome: 'present' };
  const tree = path.join(copyDir, DEPENDENCY_DIR);
  const problem = await treeProblem(tree, limits);
  if (problem) return { outcome: 'refused', reason: problem };
  await mkdir(cacheDir, { recursive: true });
  const incoming = await mkdtemp(path.join(cacheDir, '.incoming-'));
  try {
    await rename(tree, path.join(incoming, DEPENDENCY_DIR));
    await rename(incoming, path.join(cacheDir, key));
  } catch (error) {
    await rm(incoming, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    // Another process kept the same key first: theirs is as good.
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return { outcome: 'present' };
    throw error;
  }
  await evictOldKeys(cacheDir, key, limits.maxKeys);
  return { outcome: 'stored' };
}

/**
 * Why a tree may not be kept, or null: it must be a real directory with npm's install record, and hold only
 * directories, regular files and links, within the limits. The walk uses lstat only: no link is followed.
 */
export async function treeProblem(tree: string, limits: DependencyCacheLimits): Promise<string | null> {
  const root = await lstatOrNull(tree);
  if (!root) return `no ${DEPENDENCY_DIR}`;
  if (!root.isDirectory()) return `${DEPENDENCY_DIR} is not a directory (a link is never followed)`;
  if (!(await lstatOrNull(path.join(tree, INSTALL_RECORD)))?.isFile()) {
    return `${DEPENDENCY_DIR} has no ${INSTALL_RECORD} (no finished npm install)`;
  }
  let bytes = 0;
  let entries = 0;
  const pending = [tree];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    for (const name of await readdir(dir)) {
      const file = path.join(dir, name);
      const info = await lstatOrNull(file);
      if (!info) continue;
      entries += 1;
      if (info.isDirectory()) pending.push(file);
      else if (info.isFile()) bytes += info.size;
      else if (!info.isSymbolicLink()) return `${path.relative(tree, file)} is not a file, directory or link`;
      if (entries > limits.maxEntries) return `more than ${limits.maxEntries} entries`;
      if (bytes > limits.maxBytes) return `more than ${limits.maxBytes} bytes`;
    }
  }
  return null;
}

/** Removes the oldest kept keys beyond `maxKeys` (never `keep`, the one just stored). */
async function evictOldKeys(cacheDir: string, keep: string, maxKeys: number): Promise<void> {
  const keys = (await readdir(cacheDir)).filter((name) => !name.startsWith('.') && name !== keep);
  if (keys.length < maxKeys) return;
  const aged = await Promise.all(
    keys.map(async (name) => ({ name, at: (await lstatOrNull(path.join(cacheDir, name)))?.mtimeMs ?? 0 })),
  );
  aged.sort((a, b) => b.at - a.at);
  for (const { name } of aged.slice(maxKeys - 1)) {
    await rm(path.join(cacheDir, name), { recursive: true, force: true });
  }
}

/** The cache's part in one app start from a fresh copy: filled before init.sh, its tree kept after the stop. */
export interface CopyDependencies {
  /** What the fill did (null: the commit has no key, e.g. no lockfile). */
  fill: DependencyFill | null;
  /** Once the app (which started) has stopped: keeps the copy's tree when the copy installed its own. */
  keep(): Promise<void>;
}

/**
 * Fills a fresh app copy from the run's cache, and returns how to keep its tree afterwards. The cache never fails a
 * start: any error of its own is logged and the app installs as it would without it.
 */
export async function useDependencyCache(
  copy: { dir: string; repo: WorkspaceRepo; sha: string },
  cacheDir: string,
): Promise<CopyDependencies> {
  const none: CopyDependencies = { fill: null, keep: async () => undefined };
  const key = await dependencyKey(copy.repo, copy.sha).catch((error: unknown) => {
    log.warn({ err: error }, 'could not read the dependency manifests of the app copy');
    return null;
  });
  if (!key) return none;
  const fill = await fillDependencies(cacheDir, key, copy.dir).catch((error: unknown) => {
    log.warn({ err: error, key }, 'could not fill the app copy from the dependency cache');
    return { outcome: 'refused' as const, reason: String(error) };
  });
  log.debug({ key, ...fill, copy: copy.dir }, 'dependency cache');
  if (fill.outcome !== 'miss') return { fill, keep: none.keep };
  return {
    fill,
    keep: async () => {
      const kept = await captureDependencies(cacheDir, key, copy.dir).catch((error: unknown) => ({
        outcome: 'refused' as const,
        reason: String(error),
      }));
      if (kept.outcome === 'refused') log.info({ key, reason: kept.reason }, 'dependencies not kept');
      else log.debug({ key, ...kept }, 'dependencies kept');
    },
  };
}

/**
 * Fills a harness clone a generator is about to work in (a lane's, a remote run's) from the run's cache, keyed by
 * its head's manifests: null when it already has a `node_modules`, git does not ignore one there (the tree would
 * be committed), or its head has no key. Never fails the session: an error is logged and the clone installs its own.
 */
export async function fillClone(repo: WorkspaceRepo, cacheDir: string): Promise<DependencyFill | null> {
  try {
    if (await lstatOrNull(path.join(repo.dir, DEPENDENCY_DIR))) return null;
    // Asked as a directory (the trailing slash): a `node_modules/` pattern matches nothing else.
    const ignored = (await askGit(repo, ['check-ignore', '--no-index', '--', `${DEPENDENCY_DIR}/`])).trim();
    if (ignored !== `${DEPENDENCY_DIR}/`) return null;
    const key = await dependencyKey(repo, 'HEAD');
    if (!key) return null;
    const fill = await fillDependencies(cacheDir, key, repo.dir);
    log.debug({ key, ...fill, clone: repo.dir }, 'dependency cache (clone)');
    return fill;
  } catch (error) {
    log.warn({ err: error, clone: repo.dir }, 'could not fill the clone from the dependency cache');
    return null;
  }
}
