/**
 * Merging in lanes mode: a lane's branch into the run branch (the merge queue), and the run branch into a lane
 * (so its generator resolves a conflict or a broken merged head on top of what the run has). Always a merge commit
 * (`--no-ff`): each lane's commits stay in the history as they were made, and undoing a merge is one reset. The
 * files the harness itself appends to (progress notes, the verdict log) and the feature list's `passes` flags are
 * merged by the harness; an app-file conflict a mechanical rule fits is resolved by the harness too (with `rules`:
 * handoff/merge-rules.ts); any other conflict is the app's and goes to a generator.
 */
import { type FeatureListOnDisk, formatFeatureList, parseFeatureListOnDisk } from './feature-list.js';
import { WORKSPACE_FILES } from './formats.js';
import { askGit, headUnlocked, locked, runGit, type WorkspaceRepo } from './git.js';
import { type MergeRules, resolveByRules } from './merge-rules.js';
import { writeWorkspaceFile } from './safe-fs.js';

/** Files whose lines both sides appended: merged as ours plus their new lines. */
const APPENDED_FILES = ['progress.md', 'claude-progress.txt', WORKSPACE_FILES.verdicts];

/** How a merge ended: a new head, or the app files that conflict; `resolved`: app files merged by a rule. */
export type MergeAttempt =
  | { kind: 'merged'; head: string; resolved: string[] }
  | { kind: 'conflict'; files: string[]; head: string | null; resolved: string[] };

/** Options of {@link mergeInto}. */
export interface MergeOptions {
  /** The merge commit's message. */
  message: string;
  /**
   * Commit conflicting app files with their conflict markers instead of aborting (the run branch merged into a
   * lane: its generator resolves them). Default: abort and leave the branch as it was.
   */
  keepConflicts?: boolean;
  /** Resolve app-file conflicts a rule fits (handoff/merge-rules.ts) before any is left to a model. */
  rules?: MergeRules;
}

/**
 * Merges `ref` into the repository's checked-out branch with a merge commit. Harness files are resolved here;
 * other conflicts abort the merge (or, with `keepConflicts`, are committed with their markers). Throws GitError
 * when git cannot merge at all (the caller treats it as a merge error, retried).
 */
export async function mergeInto(
  repo: WorkspaceRepo,
  ref: string,
  options: MergeOptions,
): Promise<MergeAttempt> {
  return locked(repo, async () => {
    const before = await headUnlocked(repo);
    const failure = await runGit(repo, ['merge', '--no-ff', '--no-commit', '--no-edit', ref]).then(
      () => undefined,
      (error: Error) => error,
    );
    const merging = (await askGit(repo, ['rev-parse', '-q', '--verify', 'MERGE_HEAD'])).trim() !== '';
    if (!merging) {
      if (failure) throw failure;
      return { kind: 'merged', head: before as string, resolved: [] }; // already up to date
    }
    const conflicted = (await runGit(repo, ['diff', '--name-only', '--diff-filter=U', '-z']))
      .split('\0')
      .filter(Boolean);
    const unresolved: string[] = [];
    for (const file of conflicted) {
      if (await resolveHarnessFile(repo, file)) await runGit(repo, ['add', '--', file]);
      else unresolved.push(file);
    }
    const { resolved, remaining: appFiles } =
      options.rules && unresolved.length > 0
        ? await resolveByRules(repo, unresolved, options.rules)
        : { resolved: [], remaining: unresolved };
    if (appFiles.length > 0 && !options.keepConflicts) {
      await runGit(repo, ['merge', '--abort']);
      return { kind: 'conflict', files: appFiles, head: before, resolved };
    }
    if (appFiles.length > 0) await runGit(repo, ['add', '--', ...appFiles]);
    await runGit(repo, ['commit', '-q', '--no-verify', '-m', options.message]);
    const head = (await headUnlocked(repo)) as string;
    return appFiles.length > 0
      ? { kind: 'conflict', files: appFiles, head, resolved }
      : { kind: 'merged', head, resolved };
  });
}

/** Puts the checked-out branch back to `sha` (a merge whose head went red), removing what the merge added. */
export async function undoMerge(repo: WorkspaceRepo, sha: string): Promise<void> {
  await locked(repo, async () => {
    await runGit(repo, ['reset', '-q', '--hard', sha]);
    await runGit(repo, ['clean', '-q', '-fd']);
  });
}

/** Resolves a conflicted harness file in place; false when the file is the app's. */
async function resolveHarnessFile(repo: WorkspaceRepo, file: string): Promise<boolean> {
  const isList = file === WORKSPACE_FILES.featureList;
  if (!isList && !APPENDED_FILES.includes(file)) return false;
  const [base, ours, theirs] = await Promise.all(
    [1, 2, 3].map((stage) => askGit(repo, ['show', `:${stage}:${file}`])),
  );
  const merged = isList
    ? mergeFeatureLists(base ?? '', ours ?? '', theirs ?? '')
    : mergeAppended(base ?? '', ours ?? '', theirs ?? '');
  if (merged === undefined) return false;
  await writeWorkspaceFile(repo.dir, file, merged);
  return true;
}

/** Our text plus the lines their side added since the base (lines both sides added are kept once). */
export function mergeAppended(base: string, ours: string, theirs: string): string {
  const known = new Set([...lines(base), ...lines(ours)]);
  const added = lines(theirs).filter((line) => !known.has(line));
  if (added.length === 0) return ours;
  const head = ours === '' || ours.endsWith('\n') ? ours : `${ours}\n`;
  return `${head}${added.join('\n')}\n`;
}

/**
 * Our feature list with each `passes` flag their side changed since the base (a lane flips only its own feature),
 * and the features either side appended since the base (a person's `nightshift add`, written into each side before
 * its sessions): ours first, then theirs' others; one both appended keeps a pass either side recorded. Undefined when a
 * side is not a valid list or the lists differ in more than that (a generator must look).
 */
export function mergeFeatureLists(base: string, ours: string, theirs: string): string | undefined {
  try {
    const [baseList, ourList, theirList] = [base, ours, theirs].map((text) =>
      parseFeatureListOnDisk(JSON.parse(text)),
    ) as [FeatureListOnDisk, FeatureListOnDisk, FeatureListOnDisk];
    const count = baseList.length;
    const strip = (list: FeatureListOnDisk) =>
      list.map(({ passes: _passes, ...rest }) => JSON.stringify(rest));
    const [baseShape, ourShape, theirShape] = [baseList, ourList, theirList].map(strip) as [
      string[],
      string[],
      string[],
    ];
    const sameBase = (shape: string[]) => shape.slice(0, count).join('\n') === baseShape.join('\n');
    if (!sameBase(ourShape) || !sameBase(theirShape)) return undefined;
    const merged = ourList.slice(0, count).map((feature, index) => {
      const flipped = theirList[index]?.passes !== baseList[index]?.passes;
      return flipped ? { ...feature, passes: theirList[index]?.passes ?? feature.passes } : feature;
    });
    const appended = ourList.slice(count).map((feature) => ({ ...feature }));
    for (const [index, feature] of theirList.slice(count).entries()) {
      const shape = theirShape[count + index];
      const mine = appended.findIndex((_, at) => ourShape[count + at] === shape);
      if (mine < 0 && appended.some((other) => other.id !== undefined && other.id === feature.id))
        return undefined;
      if (mine < 0) appended.push(feature);
      else if (feature.passes) (appended[mine] as FeatureListOnDisk[number]).passes = true;
    }
    return formatFeatureList([...merged, ...appended]);
  } catch {
    return undefined;
  }
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}
