import { z } from 'zod';
import { FormatError } from './errors.js';
import { FeatureList, FeatureOnDisk, WORKSPACE_FILES } from './formats.js';
import { readWorkspaceText, writeWorkspaceFile } from './safe-fs.js';
import { parseJsonText, parseKeepingOrder } from './schema-io.js';

const FILE = WORKSPACE_FILES.featureList;

/** `feature_list.json` as it may be found on disk: quickstart files have no ids yet. */
export const FeatureListOnDisk = z.array(FeatureOnDisk);
export type FeatureListOnDisk = z.infer<typeof FeatureListOnDisk>;

/** Formats the number `n` (1-based) as a feature id: `F-001`. */
export function featureIdFor(n: number): string {
  return `F-${String(n).padStart(3, '0')}`;
}

/** Validates parsed JSON as a feature list whose ids may be missing; throws {@link FormatError} naming each bad path. */
export function parseFeatureListOnDisk(raw: unknown, file: string = FILE): FeatureListOnDisk {
  return parseKeepingOrder(FeatureListOnDisk, raw, file);
}

/** Validates parsed JSON as a feature list with every id present; throws {@link FormatError} naming each bad path. */
export function parseFeatureList(raw: unknown, file: string = FILE): FeatureList {
  return parseKeepingOrder(FeatureList, raw, file);
}

/**
 * Gives every feature without an id the id of its position (`F-001` for the first), or the next unused
 * number when that one is taken. Every other field, unknown ones included, is kept as it was, in its order.
 */
export function assignIds(list: FeatureListOnDisk): { list: FeatureList; assigned: number } {
  const taken = new Set(list.flatMap((f) => (f.id === undefined ? [] : [f.id])));
  let next = list.length + 1;
  let assigned = 0;
  const out = list.map((feature, index) => {
    if (feature.id !== undefined) return feature as FeatureList[number];
    let id = featureIdFor(index + 1);
    while (taken.has(id)) id = featureIdFor(next++);
    taken.add(id);
    assigned++;
    return { id, ...feature } as FeatureList[number];
  });
  return { list: out, assigned };
}

/** The file's text as the harness writes it: 2-space JSON, fields in their order, trailing newline. */
export function formatFeatureList(list: FeatureListOnDisk): string {
  return `${JSON.stringify(list, null, 2)}\n`;
}

/** Reads `feature_list.json` from a workspace, ids possibly missing; throws {@link FormatError} when absent or invalid. */
export async function readFeatureListOnDisk(workspace: string): Promise<FeatureListOnDisk> {
  return parseFeatureListOnDisk(parseJsonText(await readListText(workspace), FILE));
}

/** Reads `feature_list.json` with every id present; throws {@link FormatError} when absent, invalid or missing ids. */
export async function readFeatureList(workspace: string): Promise<FeatureList> {
  const raw = parseJsonText(await readListText(workspace), FILE);
  const onDisk = parseFeatureListOnDisk(raw);
  const missing = onDisk.flatMap((f, i) => (f.id === undefined ? [`[${i}].id: missing`] : []));
  if (missing.length > 0) {
    throw new FormatError(FILE, missing, { hint: 'adopt the workspace first: adoption assigns ids F-001…' });
  }
  return onDisk as FeatureList;
}

/**
 * Writes `feature_list.json` atomically (temp file + rename: a link at its place is replaced, never followed)
 * in the stable format of {@link formatFeatureList}.
 */
export async function writeFeatureList(workspace: string, list: FeatureListOnDisk): Promise<void> {
  await writeWorkspaceFile(workspace, FILE, formatFeatureList(list));
}

/** Largest feature list read (a 1,000-feature list is about 500 KB). */
export const MAX_FEATURE_LIST_BYTES = 16 * 1024 * 1024;

/** The list's text (no link followed, regular file, size capped); {@link FormatError} when it is missing. */
async function readListText(workspace: string): Promise<string> {
  const text = await readWorkspaceText(workspace, FILE, { maxBytes: MAX_FEATURE_LIST_BYTES });
  if (text === null) throw new FormatError(FILE, ['file not found']);
  return text;
}

/** Bounds for {@link validateInitialFeatureList}. */
export interface InitialListRules {
  /** Fewest features accepted (default 1). */
  minFeatures?: number;
  /** Most features accepted (default: no limit). */
  maxFeatures?: number;
}

/** Result of {@link validateInitialFeatureList}: the list with ids, or an error text meant for the model. */
export type InitialListResult =
  | { ok: true; list: FeatureList; idsAssigned: number }
  | { ok: false; error: string };

/**
 * Checks the initializer's feature list: valid shape, between min and max features, unique ids (missing ones
 * are assigned), every feature failing. The error lists every problem, one `feature_list.json: <path>: <what>` a line.
 */
export function validateInitialFeatureList(raw: unknown, rules: InitialListRules = {}): InitialListResult {
  const { minFeatures = 1, maxFeatures } = rules;
  let onDisk: FeatureListOnDisk;
  try {
    onDisk = parseFeatureListOnDisk(raw);
  } catch (error) {
    // Report the rule the schema cannot see too, so the model fixes everything in one round.
    if (error instanceof FormatError) return fail([...error.issues, ...passingEntries(raw)].slice(0, 30));
    throw error;
  }
  const problems: string[] = [];
  if (onDisk.length < minFeatures) {
    problems.push(`(root): has ${onDisk.length} features; at least ${minFeatures} are needed`);
  }
  if (maxFeatures !== undefined && onDisk.length > maxFeatures) {
    problems.push(`(root): has ${onDisk.length} features; at most ${maxFeatures} are allowed`);
  }
  const seen = new Map<string, number>();
  onDisk.forEach((feature, index) => {
    if (feature.id !== undefined) {
      const first = seen.get(feature.id);
      if (first !== undefined) problems.push(`[${index}].id: ${feature.id} is already used by [${first}]`);
      else seen.set(feature.id, index);
    }
  });
  problems.push(...passingEntries(onDisk));
  if (problems.length > 0) return fail(problems.slice(0, 30));
  const { list, assigned } = assignIds(onDisk);
  const dependencyProblems = dependencyIssues(list);
  if (dependencyProblems.length > 0) return fail(dependencyProblems.slice(0, 30));
  return { ok: true, list, idsAssigned: assigned };
}

/** `depends_on` must name other features of the list, without cycles. */
export function dependencyIssues(list: FeatureList): string[] {
  const byId = new Map(list.map((feature) => [feature.id, feature]));
  const problems: string[] = [];
  list.forEach((feature, index) => {
    for (const id of feature.depends_on ?? []) {
      if (id === feature.id) problems.push(`[${index}].depends_on: ${id} is the feature itself`);
      else if (!byId.has(id)) problems.push(`[${index}].depends_on: ${id} is not a feature id of this list`);
    }
  });
  const cycle = firstCycle(byId);
  if (cycle) problems.push(`depends_on: a cycle ${cycle.join(' → ')}; remove one of these dependencies`);
  return problems;
}

/** The first dependency cycle found (depth-first, each feature visited once), as ids from start back to start. */
function firstCycle(byId: Map<string, FeatureList[number]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'open') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'open');
    stack.push(id);
    for (const next of byId.get(id)?.depends_on ?? []) {
      if (next === id || !byId.has(next)) continue; // reported above
      const found = visit(next);
      if (found) return found;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of byId.keys()) {
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}

/** One problem line per entry of a raw list marked as passing: a new list must start all failing. */
function passingEntries(raw: unknown): string[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry, index) =>
    entry && typeof entry === 'object' && (entry as { passes?: unknown }).passes === true
      ? [`[${index}].passes: must be false (only the evaluator's verdict makes a feature pass)`]
      : [],
  );
}

function fail(lines: string[]): InitialListResult {
  return { ok: false, error: lines.map((line) => `${FILE}: ${line}`).join('\n') };
}
