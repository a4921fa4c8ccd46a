/**
 * What the affected-check selection reads from the run branch's repository: the lanes' diffs, each passing feature's
 * footprint (the files its own merge brought in, from the merge commits, and the pages its check opens) and the
 * app's relative imports (a static scan of the tracked source files). Cheap: three git commands and the sources.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RecordedCheck } from '../checks/format.js';
import { FileMemo } from '../core/file-memo.js';
import { askGit, runGit, type WorkspaceRepo } from '../handoff/git.js';
import type { CheckFootprint, ImportGraph, LaneChange } from './affected-checks.js';

/** Changed lines kept per diff: enough to name pages and files, bounded for a lane that rewrote the app. */
const MAX_CHANGED_LINES = 20_000;
/** Source files larger than this are not scanned for imports (bundles, generated files). */
const MAX_SCANNED_BYTES = 256 * 1024;
const SOURCE_FILE = /\.(m?[jt]sx?|cjs|html?|css|vue|svelte)$/i;
const IMPORT_PATTERNS = [
  /\bimport\s[^'"`;]*?from\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(?\s*['"]([^'"]+)['"]/g,
  /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /<script[^>]*\ssrc\s*=\s*['"]([^'"]+)['"]/gi,
  /<link[^>]*\shref\s*=\s*['"]([^'"]+)['"]/gi,
  /@import\s+(?:url\()?\s*['"]([^'"]+)['"]/g,
];

/** What lane `featureId` changed between `before` and `after` (files, and the diff's added and removed lines). */
export async function laneChange(
  repo: WorkspaceRepo,
  range: { before: string; after: string },
  featureId: string,
): Promise<LaneChange> {
  const names = await runGit(repo, ['diff', '--name-only', '--no-renames', range.before, range.after]);
  const diff = await runGit(repo, ['diff', '--unified=0', '--no-renames', range.before, range.after]);
  const changedLines = diff
    .split('\n')
    .filter((line) => /^[+-]/.test(line) && !/^(\+\+\+|---) /.test(line))
    .slice(0, MAX_CHANGED_LINES)
    .map((line) => line.slice(1));
  return { featureId, files: names.split('\n').filter((name) => name !== ''), changedLines };
}

/**
 * The footprints of the checks: for each, the files the merge commits of its feature (`nightshift(merge): F-001
 * from lane 2`) changed against the run branch, and the pages the check opens. A feature never merged by the
 * queue has pages only.
 */
export async function checkFootprints(
  repo: WorkspaceRepo,
  at: string,
  checks: readonly RecordedCheck[],
): Promise<CheckFootprint[]> {
  const filesByFeature = await mergedFiles(repo, at);
  return checks.map((check) => ({
    featureId: check.featureId,
    files: [...(filesByFeature.get(check.featureId) ?? [])],
    pages: check.actions.flatMap((action) => (action.kind === 'goto' ? [action.path] : [])),
  }));
}

/** The last answer of {@link mergedFiles} per repository: the next merge reads only the merges after it. */
const MERGED_FILES = new Map<string, { at: string; byFeature: Map<string, Set<string>> }>();
/** Repositories remembered (a worker's run branch copies, one per run it merges for). */
const MERGED_FILES_KEPT = 32;

/**
 * Feature id → files its lanes' merges into the run branch changed (first-parent diffs of the merge commits). Reads
 * only the merges since the last call on the same repository when that head is still in the history (a merge the
 * queue undid is not: then all of them), so a merge does not read the whole history again.
 */
export async function mergedFiles(repo: WorkspaceRepo, at: string): Promise<Map<string, Set<string>>> {
  const sha = (await runGit(repo, ['rev-parse', '--verify', `${at}^{commit}`])).trim();
  const kept = MERGED_FILES.get(repo.dir);
  // `merge-base --is-ancestor` answers by its exit code alone, which runGit does not report: the base is compared.
  const grows =
    kept !== undefined &&
    (kept.at === sha || (await askGit(repo, ['merge-base', kept.at, sha])).trim() === kept.at);
  const byFeature = grows ? copyOf(kept.byFeature) : new Map<string, Set<string>>();
  if (!grows || kept.at !== sha)
    addMergedFiles(byFeature, await mergeLog(repo, grows ? `${kept.at}..${sha}` : sha));
  if (MERGED_FILES.size >= MERGED_FILES_KEPT) MERGED_FILES.clear();
  MERGED_FILES.set(repo.dir, { at: sha, byFeature: copyOf(byFeature) });
  return byFeature;
}

function mergeLog(repo: WorkspaceRepo, range: string): Promise<string> {
  return runGit(repo, [
    'log',
    '--first-parent',
    '--merges',
    '--diff-merges=first-parent',
    '--name-only',
    '--no-renames',
    '--format=%x00%s',
    range,
  ]);
}

function addMergedFiles(byFeature: Map<string, Set<string>>, log: string): void {
  for (const entry of log.split('\0').slice(1)) {
    const [subject = '', ...files] = entry.split('\n');
    const featureId = mergedFeatureOf(subject);
    if (!featureId) continue;
    const set = byFeature.get(featureId) ?? new Set<string>();
    for (const file of files) if (file.trim() !== '') set.add(file.trim());
    byFeature.set(featureId, set);
  }
}

function copyOf(byFeature: ReadonlyMap<string, ReadonlySet<string>>): Map<string, Set<string>> {
  return new Map([...byFeature].map(([featureId, files]) => [featureId, new Set(files)]));
}

/** The feature a merge queue's merge commit brought in (`nightshift(merge): F-001 from lane 2`), if it is one. */
export function mergedFeatureOf(subject: string): string | undefined {
  return /^nightshift\(merge\): (\S+) from lane \d+$/.exec(subject.trim())?.[1];
}

/** Each source file's import specifiers, read again only when the file changed (the merge queue asks on every merge). */
const SPECIFIERS = new FileMemo<string[]>();

/** The app's static relative imports among its tracked source files (the checked-out work tree). */
export async function importGraph(repo: WorkspaceRepo): Promise<ImportGraph> {
  const tracked = (await runGit(repo, ['ls-files', '-z']))
    .split('\0')
    .filter((file) => SOURCE_FILE.test(file));
  const known = new Set(tracked);
  const graph = new Map<string, string[]>();
  for (const file of tracked) {
    if (file.startsWith('.nightshift/') || file.split('/').includes('node_modules')) continue;
    const specifiers = await SPECIFIERS.get(path.join(repo.dir, file), async () => {
      const text = await readFile(path.join(repo.dir, file), 'utf8').catch(() => '');
      return text.length === 0 || text.length > MAX_SCANNED_BYTES ? [] : importSpecifiers(text);
    });
    const imports = resolveAll(file, specifiers, known);
    if (imports.length > 0) graph.set(file, imports);
  }
  return graph;
}

/** The tracked files `file`'s relative (or root-relative, for pages) specifiers resolve to. */
export function importsOf(file: string, text: string, known: ReadonlySet<string>): string[] {
  return resolveAll(file, importSpecifiers(text), known);
}

/** Every specifier the text imports, links or requires, as written. */
function importSpecifiers(text: string): string[] {
  return IMPORT_PATTERNS.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1] as string));
}

function resolveAll(file: string, specifiers: readonly string[], known: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const specifier of specifiers) {
    const resolved = resolveSpecifier(file, specifier, known);
    if (resolved && resolved !== file) found.add(resolved);
  }
  return [...found];
}

function resolveSpecifier(file: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  const bare = specifier.replace(/[?#].*$/, '');
  const directory = path.posix.dirname(file);
  let base: string;
  if (bare.startsWith('./') || bare.startsWith('../')) base = path.posix.join(directory, bare);
  // A page's `/app.js` is served from the page's own folder (its static root) or from the workspace root.
  else if (bare.startsWith('/') && !bare.startsWith('//'))
    return [path.posix.join(directory, bare), bare.slice(1)].find((candidate) => known.has(candidate));
  else return undefined;
  const candidates = ['', '.js', '.ts', '.mjs', '.jsx', '.tsx', '/index.js', '/index.ts'].map(
    (end) => base + end,
  );
  return candidates.find((candidate) => known.has(candidate));
}
