/**
 * Which recorded checks a merge replays (pure): the checks what the merged lanes changed can affect, plus the lanes'
 * own. A check is linked to the app through its feature's footprint: the files its own merge brought in, and the
 * pages its check opens. A lane's change reaches a check when it touches a footprint file or a file one imports
 * (transitively, through the app's relative imports), or when a changed line names the check's page or one of its
 * feature's files. A file in many footprints (a route table, a nav menu) links only through its changed lines:
 * by file alone every merge would replay everything. A check with no footprint (its feature never came through the
 * merge queue) is always replayed. What this misses, the scheduled full sweep finds.
 */
import { z } from 'zod';

/** How a merge picks its checks: `all` replays every passing feature's check (the cost grows with the app). */
export const AffectedStrategy = z.enum(['diff', 'imports', 'lines', 'all']);
export type AffectedStrategy = z.infer<typeof AffectedStrategy>;

/** What links one passing feature's check to the app. */
export interface CheckFootprint {
  featureId: string;
  /** Workspace-relative files its own merge added or changed. */
  files: readonly string[];
  /** The pages its check opens (`/path?query#hash`). */
  pages: readonly string[];
}

/** What one merged lane changed: the files, and the added and removed lines of its diff. */
export interface LaneChange {
  featureId: string;
  files: readonly string[];
  changedLines: readonly string[];
}

/** The app's static relative imports: file → the files it imports (workspace-relative). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** What {@link affectedChecks} decides from. */
export interface AffectedInput {
  changes: readonly LaneChange[];
  footprints: readonly CheckFootprint[];
  graph: ImportGraph;
  /** `diff`: footprint files only; `imports`: and their importers; `lines` (default): and changed lines. */
  strategy?: AffectedStrategy;
  /** Also replayed whatever the change (checks a full sweep found red, sent back with a lane's feature). */
  always?: readonly string[];
}

/** A file in more than this share of footprints (and at least {@link HOT_MIN} of them) links by its lines only. */
const HOT_SHARE = 0.25;
const HOT_MIN = 4;
/** File stems too common to name one feature in a changed line. */
const GENERIC_STEMS = new Set([
  'index',
  'main',
  'app',
  'style',
  'styles',
  'server',
  'routes',
  'utils',
  'util',
]);

/** The feature ids whose checks a merge of `changes` replays (the lanes' own included). */
export function affectedChecks(input: AffectedInput): Set<string> {
  const strategy = input.strategy ?? 'lines';
  const selected = new Set<string>([
    ...input.changes.map((change) => change.featureId),
    ...(input.always ?? []),
  ]);
  if (strategy === 'all') {
    for (const footprint of input.footprints) selected.add(footprint.featureId);
    return selected;
  }
  const hot = strategy === 'diff' ? new Set<string>() : hotFiles(input.footprints);
  const changed = new Set(input.changes.flatMap((change) => change.files).filter((file) => !hot.has(file)));
  const reached = strategy === 'diff' ? changed : importersOf(changed, input.graph, hot);
  const lines = strategy === 'lines' ? input.changes.flatMap((change) => change.changedLines) : [];
  for (const footprint of input.footprints) {
    if (selected.has(footprint.featureId)) continue;
    // Nothing links a feature that never came through the merge queue to files: it cannot be ruled out.
    if (footprint.files.length === 0) selected.add(footprint.featureId);
    else if (footprint.files.some((file) => linksByFile(file, reached, input.graph, hot)))
      selected.add(footprint.featureId);
    else if (lines.length > 0 && namedInLines(footprint, hot, lines)) selected.add(footprint.featureId);
  }
  return selected;
}

/** Files in many footprints: a change there links by its lines, not by the file. */
export function hotFiles(footprints: readonly CheckFootprint[]): Set<string> {
  const counts = new Map<string, number>();
  for (const footprint of footprints)
    for (const file of new Set(footprint.files)) counts.set(file, (counts.get(file) ?? 0) + 1);
  const limit = Math.max(HOT_MIN, footprints.length * HOT_SHARE);
  return new Set([...counts].filter(([, count]) => count > limit).map(([file]) => file));
}

/** The changed files and every file that imports one of them, transitively (hot files do not pass it on). */
export function importersOf(
  changed: ReadonlySet<string>,
  graph: ImportGraph,
  hot: ReadonlySet<string>,
): Set<string> {
  const importedBy = new Map<string, string[]>();
  for (const [file, imports] of graph)
    for (const imported of imports) {
      const importers = importedBy.get(imported);
      if (importers) importers.push(file);
      else importedBy.set(imported, [file]);
    }
  const reached = new Set(changed);
  const queue = [...changed];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const importer of importedBy.get(file) ?? []) {
      if (reached.has(importer) || hot.has(importer)) continue;
      reached.add(importer);
      queue.push(importer);
    }
  }
  return reached;
}

/**
 * Whether a footprint file links its check to the change: it was reached, or it imports (directly) a reached file
 * (a page's own script importing a changed module). A hot file links by its lines only, never by what it imports:
 * the route table imports every page module, so through it every new module would reach every check.
 */
function linksByFile(
  file: string,
  reached: ReadonlySet<string>,
  graph: ImportGraph,
  hot: ReadonlySet<string>,
): boolean {
  if (hot.has(file)) return false;
  return reached.has(file) || (graph.get(file) ?? []).some((imported) => reached.has(imported));
}

/** Whether a changed line names one of the check's pages (not `/`) or one of its feature's own files. */
function namedInLines(
  footprint: CheckFootprint,
  hot: ReadonlySet<string>,
  lines: readonly string[],
): boolean {
  const names = [
    ...footprint.pages.map(pagePathOf).filter((page) => page.length > 1),
    ...footprint.files.filter((file) => !hot.has(file)).flatMap(fileNames),
  ];
  return names.length > 0 && lines.some((line) => names.some((name) => mentions(line, name)));
}

/** `/recipes/new?x=1#a` → `/recipes/new`. */
function pagePathOf(page: string): string {
  const end = page.search(/[?#]/);
  const pathOnly = end < 0 ? page : page.slice(0, end);
  return pathOnly.length > 1 ? pathOnly.replace(/\/+$/, '') : pathOnly;
}

/** The names a line may use for a file: its path without extension, and its stem unless generic. */
function fileNames(file: string): string[] {
  const withoutExtension = file.replace(/\.[A-Za-z0-9]+$/, '');
  const stem = withoutExtension.slice(withoutExtension.lastIndexOf('/') + 1);
  return GENERIC_STEMS.has(stem.toLowerCase()) || stem.length < 4
    ? [withoutExtension]
    : [withoutExtension, stem];
}

/** Whether `name` occurs in `line` as a whole name (not inside a longer identifier or path segment). */
function mentions(line: string, name: string): boolean {
  for (let at = line.indexOf(name); at >= 0; at = line.indexOf(name, at + 1)) {
    const before = line[at - 1] ?? ' ';
    const after = line[at + name.length] ?? ' ';
    if (!/[A-Za-z0-9_-]/.test(before) && !/[A-Za-z0-9_-]/.test(after)) return true;
  }
  return false;
}
