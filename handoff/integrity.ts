import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { moduleLogger } from '../core/log.js';
import { GitError } from './errors.js';
import { MAX_FEATURE_LIST_BYTES, parseFeatureList, writeFeatureList } from './feature-list.js';
import {
  type Feature,
  FeatureList,
  FeatureOnDisk,
  type IntegrityViolation,
  WORKSPACE_FILES,
} from './formats.js';
import { checkpointUnlocked, locked, runGit, showFile, type WorkspaceRepo } from './git.js';
import { readWorkspaceText, writeWorkspaceFile } from './safe-fs.js';
import { issueLines } from './schema-io.js';

const log = moduleLogger('handoff/integrity');

/** What the role whose session is checked may change in `feature_list.json`. */
export interface IntegrityRules {
  /** Only the harness's verdict application may flip `passes`; sessions may not. */
  mayChangePasses: boolean;
}

/** The violations found and the feature list that is allowed to stand. */
export interface IntegrityResult {
  violations: IntegrityViolation[];
  /** The `before` list, or with `mayChangePasses` the `before` list carrying the new `passes` values. */
  restored: FeatureList;
}

const AfterList = z.array(FeatureOnDisk);
const FILE = WORKSPACE_FILES.featureList;

/**
 * Compares the feature list at a session's start (`before`) with what the session left (`after`: the parsed
 * JSON, or undefined when the file is missing or not JSON). Reports every change the rules do not allow,
 * one violation per feature and kind, and returns the list to restore.
 */
export function checkFeatureListIntegrity(
  before: FeatureList,
  after: unknown,
  rules: IntegrityRules,
): IntegrityResult {
  if (after === undefined) {
    return invalid(before, `${FILE} was deleted or is not valid JSON`);
  }
  const parsed = AfterList.safeParse(after);
  if (!parsed.success) {
    return invalid(
      before,
      `${FILE} no longer matches its schema: ${issueLines(parsed.error).slice(0, 10).join('; ')}`,
    );
  }
  const beforeById = new Map(before.map((f) => [f.id, f]));
  const { afterById, violations } = indexAfterList(parsed.data, beforeById);
  for (const feature of before) {
    const changed = afterById.get(feature.id);
    if (!changed) {
      violations.push({
        kind: 'feature_removed',
        featureId: feature.id,
        detail: `${feature.id} was removed`,
      });
      continue;
    }
    violations.push(...compareFeature(feature, changed, rules));
  }
  const order = reorderViolation(before, parsed.data, beforeById);
  if (order) violations.push(order);
  const restored = before.map((feature) => {
    const changed = afterById.get(feature.id);
    return rules.mayChangePasses && changed && changed.passes !== feature.passes
      ? { ...feature, passes: changed.passes }
      : feature;
  });
  return { violations, restored };
}

/** The session's features by id (known ids only, first occurrence), with a violation for each added feature. */
function indexAfterList(
  after: readonly FeatureOnDisk[],
  beforeById: ReadonlyMap<string, Feature>,
): { afterById: Map<string, FeatureOnDisk>; violations: IntegrityViolation[] } {
  const violations: IntegrityViolation[] = [];
  const afterById = new Map<string, FeatureOnDisk>();
  after.forEach((feature, index) => {
    if (feature.id === undefined) {
      violations.push({
        kind: 'feature_added',
        detail: `a feature without an id was added at [${index}]: "${feature.description}"`,
      });
    } else if (afterById.has(feature.id)) {
      violations.push({
        kind: 'feature_added',
        featureId: feature.id,
        detail: `${feature.id} appears twice (again at [${index}])`,
      });
    } else if (!beforeById.has(feature.id)) {
      afterById.set(feature.id, feature);
      violations.push({
        kind: 'feature_added',
        featureId: feature.id,
        detail: `${feature.id} was added: "${feature.description}"`,
      });
    } else {
      afterById.set(feature.id, feature);
    }
  });
  return { afterById, violations };
}

function compareFeature(before: Feature, after: FeatureOnDisk, rules: IntegrityRules): IntegrityViolation[] {
  const out: IntegrityViolation[] = [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const edited = [...keys].filter(
    (key) => key !== 'passes' && key !== 'id' && !isDeepStrictEqual(before[key], after[key]),
  );
  if (edited.length > 0) {
    out.push({
      kind: 'feature_edited',
      featureId: before.id,
      detail: `${before.id}: ${edited.map((key) => describeEdit(key, before[key], after[key])).join('; ')}`,
    });
  }
  if (!rules.mayChangePasses && after.passes !== before.passes) {
    out.push({
      kind: 'passes_changed',
      featureId: before.id,
      detail: `${before.id}: passes changed from ${before.passes} to ${after.passes}; only an evaluator verdict applied by the harness may do that`,
    });
  }
  return out;
}

function describeEdit(key: string, before: unknown, after: unknown): string {
  if (after === undefined) return `${key} removed`;
  if (before === undefined) return `${key} added`;
  if (Array.isArray(before) && Array.isArray(after)) {
    const changed = after.flatMap((v, i) => (isDeepStrictEqual(v, before[i]) ? [] : [i]));
    const count = before.length === after.length ? '' : ` (${before.length} → ${after.length} items)`;
    return `${key} changed${count}${changed.length ? ` at [${changed.slice(0, 5).join(', ')}]` : ''}`;
  }
  return `${key} changed from ${short(before)} to ${short(after)}`;
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…"` : text;
}

function reorderViolation(
  before: FeatureList,
  after: FeatureOnDisk[],
  beforeById: Map<string, Feature>,
): IntegrityViolation | undefined {
  const seen = new Set<string>();
  const afterOrder = after.flatMap((f) => {
    if (f.id === undefined || !beforeById.has(f.id) || seen.has(f.id)) return [];
    seen.add(f.id);
    return [f.id];
  });
  const beforeOrder = before.map((f) => f.id).filter((id) => seen.has(id));
  if (isDeepStrictEqual(afterOrder, beforeOrder)) return undefined;
  const firstMoved = beforeOrder.findIndex((id, i) => afterOrder[i] !== id);
  return {
    kind: 'features_reordered',
    detail: `features were reordered: expected ${beforeOrder.slice(firstMoved, firstMoved + 5).join(', ')} at position ${firstMoved}, found ${afterOrder.slice(firstMoved, firstMoved + 5).join(', ')}`,
  };
}

function invalid(before: FeatureList, detail: string): IntegrityResult {
  return { violations: [{ kind: 'feature_list_invalid', detail }], restored: FeatureList.parse(before) };
}

/** Identifies the session whose changes are guarded, for the restore commit's message. */
export interface GuardSession {
  runId: string;
  session: number;
}

/** What {@link guardFeatureList} found and did. */
export interface GuardResult {
  violations: IntegrityViolation[];
  /** The feature list now in the workspace. */
  list: FeatureList;
  /** The restore commit, or null when nothing had to be restored. */
  commit: string | null;
}

/**
 * The integrity guard: compares `feature_list.json` at the session's start commit with the work tree, and when
 * the session changed what it may not, writes the allowed version back (byte for byte the start version when no
 * `passes` change is allowed) and commits it as `nightshift(harness)`. Run it after the session's checkpoint.
 */
export async function guardFeatureList(
  repo: WorkspaceRepo,
  startCommit: string,
  rules: IntegrityRules & GuardSession,
): Promise<GuardResult> {
  return locked(repo, async () => {
    const startText = await showFile(repo, startCommit, FILE);
    if (startText === null) {
      throw new GitError(['show', `${startCommit}:${FILE}`], `${FILE} does not exist at the start commit`, {
        hint: 'the guard applies to sessions that start with a feature list (not the initializer)',
      });
    }
    const before = parseFeatureList(JSON.parse(startText) as unknown);
    const ruleSet = { mayChangePasses: rules.mayChangePasses };
    // The committed list counts as much as the file on disk: git plumbing (hash-object + update-index)
    // can commit a changed list while the file, read-only to the session, stays as it was.
    const committed = checkFeatureListIntegrity(
      before,
      parseOrUndefined(await showFile(repo, 'HEAD', FILE)),
      ruleSet,
    );
    const onDisk = checkFeatureListIntegrity(before, await readAfter(repo.dir), ruleSet);
    const { violations, restored } = committed.violations.length ? committed : onDisk;
    if (violations.length === 0) return { violations, list: restored, commit: null };
    // A skip-worktree or assume-unchanged bit would keep `git add` from staging the restored file.
    for (const flag of ['--no-skip-worktree', '--no-assume-unchanged']) {
      await runGit(repo, ['update-index', flag, '--', FILE]).catch(() => '');
    }
    if (isDeepStrictEqual(restored, before)) await writeWorkspaceFile(repo.dir, FILE, startText);
    else await writeFeatureList(repo.dir, restored);
    // Tracked again even if the session listed it in .gitignore (an untracked, ignored list is not committed).
    await runGit(repo, ['add', '-f', '--', FILE]);
    const commit = await checkpointUnlocked(repo, {
      role: 'harness',
      runId: rules.runId,
      session: rules.session,
      summary: `restore ${FILE} (${violations.map((v) => v.kind).join(', ')})`,
      paths: [FILE],
    });
    log.warn({ dir: repo.dir, violations }, 'feature list restored');
    return { violations, list: restored, commit };
  });
}

function parseOrUndefined(text: string | null): unknown {
  try {
    return text === null ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** The list on disk, parsed; undefined when missing, not JSON, or not a file the harness reads (a link, a FIFO…). */
async function readAfter(workspace: string): Promise<unknown> {
  try {
    const text = await readWorkspaceText(workspace, FILE, { maxBytes: MAX_FEATURE_LIST_BYTES });
    return text === null ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}
