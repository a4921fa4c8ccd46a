/**
 * Where recorded checks live: the check itself in the workspace (`.nightshift/checks/<id>.json`, committed
 * with the verdict, the spec beside it in `e2e/`), the last replay of each in the data dir (replays are
 * frequent and belong to the run, not to the app's history).
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { withPathLock } from '../core/path-lock.js';
import { checkReplaysDir } from '../core/paths.js';
import { FormatError } from '../handoff/errors.js';
import { FeatureId, WORKSPACE_FILES } from '../handoff/formats.js';
import { readWorkspaceText, type SafeWriteOptions, writeWorkspaceFile } from '../handoff/safe-fs.js';
import { issueLines, parseJsonText } from '../handoff/schema-io.js';
import { FIXTURES_MODULE, generateSpec, SPEC_DIR, specPath } from './codegen.js';
import { CheckFile, type RecordedCheck } from './format.js';
import type { ReplayResult } from './replay.js';

/** Folder of the check files in the workspace. */
export const CHECKS_DIR = `${WORKSPACE_FILES.harnessDir}/checks`;
/** Largest check file read. */
const MAX_CHECK_BYTES = 1024 * 1024;

/** Workspace-relative path of a feature's check file. */
export function checkFilePath(featureId: string): string {
  return `${CHECKS_DIR}/${featureId}.json`;
}

/** The feature's check file, or null when it has none; throws {@link FormatError} when it is invalid. */
export async function readCheckFile(workspace: string, featureId: string): Promise<CheckFile | null> {
  const file = checkFilePath(featureId);
  const text = await readWorkspaceText(workspace, file, { maxBytes: MAX_CHECK_BYTES });
  if (text === null) return null;
  const parsed = CheckFile.safeParse(parseJsonText(text, file));
  if (!parsed.success) throw new FormatError(file, issueLines(parsed.error));
  return parsed.data;
}

/**
 * Writes a new current version of the feature's check (the previous one moves to the history) and its spec.
 * Returns the workspace-relative paths written.
 */
export async function writeCheck(
  workspace: string,
  check: RecordedCheck,
  options: { title: string; flaky: CheckFile['flaky'] },
): Promise<string[]> {
  const existing = await readCheckFile(workspace, check.featureId);
  const history = existing ? [...existing.history, existing.current] : [];
  const file: CheckFile = CheckFile.parse({
    featureId: check.featureId,
    current: check,
    history,
    flaky: options.flaky,
  });
  const jsonPath = checkFilePath(check.featureId);
  await writeWorkspaceFile(workspace, jsonPath, `${JSON.stringify(file, null, 2)}\n`);
  const spec = specPath(check.featureId);
  await writeWorkspaceFile(workspace, spec, generateSpec(check, options.title));
  return [jsonPath, spec, await writeSpecSupport(workspace)];
}

/** The install's copy of the module every generated spec imports (`checks/exported/`). */
const FIXTURES_SOURCE = new URL(`./exported/${FIXTURES_MODULE}.ts`, import.meta.url);

/**
 * Writes `e2e/nightshift-fixtures.ts` (the turns checks take on the shared app) beside the specs, as the install
 * has it; returns its workspace-relative path.
 */
export async function writeSpecSupport(workspace: string, options: SafeWriteOptions = {}): Promise<string> {
  const target = SPEC_SUPPORT_PATH;
  await writeWorkspaceFile(workspace, target, await readFile(FIXTURES_SOURCE, 'utf8'), options);
  return target;
}

/** Workspace-relative path of the module every generated spec imports. */
export const SPEC_SUPPORT_PATH = `${SPEC_DIR}/${FIXTURES_MODULE}.ts`;

/** The version the next recording of a feature gets. */
export async function nextCheckVersion(workspace: string, featureId: string): Promise<number> {
  const existing = await readCheckFile(workspace, featureId).catch(() => null);
  return existing ? Math.max(existing.current.version, ...existing.history.map((c) => c.version)) + 1 : 1;
}

/** The last replay of a feature's check, as kept in the data dir. */
export const ReplayRecord = z.object({
  featureId: FeatureId,
  version: z.number().int().positive(),
  ok: z.boolean(),
  at: z.string(),
  durationMs: z.number().nonnegative(),
  /** Who replayed: the pass gate (right after recording), a sweep, or `nightshift checks run`. */
  by: z.enum(['gate', 'sweep', 'cli']),
  failure: z
    .object({
      stage: z.enum(['action', 'expectation']),
      index: z.number(),
      description: z.string(),
      message: z.string(),
    })
    .optional(),
  /** Failure screenshot, relative to the data dir. */
  screenshot: z.string().optional(),
  /**
   * This version of the check holds on a clean app only: a sweep found it red on its shared app and green on an
   * app of its own (it expects the whole app's state, e.g. a count). Later sweeps replay it first.
   */
  needsCleanApp: z.boolean().optional(),
});
export type ReplayRecord = z.infer<typeof ReplayRecord>;

const ReplayIndex = z.record(z.string(), ReplayRecord);

/** Keeps a replay result as the feature's last replay. */
export async function saveReplay(
  home: string,
  runId: string,
  result: ReplayResult,
  meta: { by: ReplayRecord['by']; at: string },
): Promise<ReplayRecord> {
  const [record] = await saveReplays(home, runId, [result], meta);
  return record as ReplayRecord;
}

/** Where each feature's last replay is kept: one file per feature, so no save rewrites another feature's record. */
const LAST_REPLAY_DIR = 'last';

/** The file of one feature's last replay (its id encoded: a model chose it). */
function lastReplayFile(dir: string, featureId: string): string {
  return path.join(dir, LAST_REPLAY_DIR, `${encodeURIComponent(featureId)}.json`);
}

/**
 * Keeps replay results as their features' last replays. Each feature's record is a file of its own, written whole
 * under a temporary name and renamed: saves at once, in this process (a lane's check gate while a sweep finishes) or
 * in another worker on the same data dir, never drop each other's records; two saves of one feature leave the one
 * renamed last. This process's saves of a run take turns, so each reads the record it replaces.
 */
export async function saveReplays(
  home: string,
  runId: string,
  results: readonly ReplayResult[],
  meta: { by: ReplayRecord['by']; at: string },
): Promise<ReplayRecord[]> {
  const dir = checkReplaysDir(home, runId);
  return withPathLock(dir, async () => {
    const index = await readLastReplays(
      dir,
      results.map((result) => result.featureId),
    );
    const records = results.map((result) =>
      ReplayRecord.parse({
        featureId: result.featureId,
        version: result.version,
        ok: result.ok,
        at: meta.at,
        durationMs: result.durationMs,
        by: meta.by,
        ...(result.failure ? { failure: result.failure } : {}),
        ...(result.screenshot ? { screenshot: path.relative(home, result.screenshot) } : {}),
        ...(needsCleanApp(result, index[result.featureId]) ? { needsCleanApp: true } : {}),
      }),
    );
    await mkdir(path.join(dir, LAST_REPLAY_DIR), { recursive: true });
    for (const record of records) {
      const file = lastReplayFile(dir, record.featureId);
      const temporary = `${file}.${process.pid}-${randomUUID()}.tmp`;
      try {
        await writeFile(temporary, JSON.stringify(record, null, 2));
        await rename(temporary, file);
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => undefined);
        throw error;
      }
    }
    await removeStaleTemporaries(path.join(dir, LAST_REPLAY_DIR), Date.now());
    return records;
  });
}

/** A temporary record older than this was left by a save that died before its rename (another save's is younger). */
export const STALE_TEMPORARY_MS = 60 * 60_000;

/** Removes the temporary files of saves that died between writing and renaming (a killed worker's). */
async function removeStaleTemporaries(lastDir: string, now: number): Promise<void> {
  const names = (await readdir(lastDir).catch(() => [])).filter((name) => name.endsWith('.tmp'));
  await Promise.all(
    names.map(async (name) => {
      const file = path.join(lastDir, name);
      const info = await lstat(file).catch(() => undefined);
      // Best effort: the records are in place; a file that cannot go now is tried at the next save.
      if (info?.isFile() && now - info.mtimeMs > STALE_TEMPORARY_MS)
        await rm(file, { force: true }).catch(() => undefined);
    }),
  );
}

/** Green only on an app of its own now, or known to need one for this version before. */
function needsCleanApp(result: ReplayResult, last: ReplayRecord | undefined): boolean {
  if (result.ownApp && result.ok) return true;
  return last?.needsCleanApp === true && last.version === result.version;
}

/**
 * The last replay of every feature of the run (empty when none ran; an unreadable record counts as none). Runs
 * from before one file per feature kept them all in `last-replays.json`: read first, then overlaid.
 */
export async function readReplays(home: string, runId: string): Promise<Record<string, ReplayRecord>> {
  const dir = checkReplaysDir(home, runId);
  const legacy = ReplayIndex.safeParse(await readJson(path.join(dir, 'last-replays.json')));
  const index: Record<string, ReplayRecord> = legacy.success ? legacy.data : {};
  const names = (await readdir(path.join(dir, LAST_REPLAY_DIR)).catch(() => [])).filter((name) =>
    name.endsWith('.json'),
  );
  const values = await Promise.all(names.map((name) => readJson(path.join(dir, LAST_REPLAY_DIR, name))));
  names.forEach((name, position) => {
    // A temporary file (`….json.<pid>-<uuid>.tmp`) is not listed; a record under another feature's name is ignored.
    const record = ReplayRecord.safeParse(values[position]);
    if (record.success && name === `${encodeURIComponent(record.data.featureId)}.json`)
      index[record.data.featureId] = record.data;
  });
  return index;
}

/** The last replays of `featureIds` only (what a save replaces): one read each, not the whole run's. */
async function readLastReplays(
  dir: string,
  featureIds: readonly string[],
): Promise<Record<string, ReplayRecord>> {
  const index: Record<string, ReplayRecord> = {};
  let legacy: Record<string, ReplayRecord> | undefined;
  for (const featureId of new Set(featureIds)) {
    const record = ReplayRecord.safeParse(await readJson(lastReplayFile(dir, featureId)));
    if (record.success && record.data.featureId === featureId) {
      index[featureId] = record.data;
      continue;
    }
    if (!legacy) {
      const parsed = ReplayIndex.safeParse(await readJson(path.join(dir, 'last-replays.json')));
      legacy = parsed.success ? parsed.data : {};
    }
    const old = legacy[featureId];
    if (old) index[featureId] = old;
  }
  return index;
}

/** A JSON file's value; undefined when it is missing or not JSON. */
async function readJson(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
