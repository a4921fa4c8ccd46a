/**
 * Harness git never transforms content on the way in or out of the object database. A committed
 * `.gitattributes` can name conversions that need no configuration (`working-tree-encoding`, `eol`, `text`,
 * `ident`): with them, harness checkouts re-encode `feature_list.json` and harness commits re-encode what the
 * session wrote, and the harness reads bytes the model chose. `$GIT_DIR/info/attributes` has the highest
 * precedence of all attribute sources and lives in `.git`, which the box cannot write: its last line unsets
 * every transforming attribute for every path, so whatever the workspace commits, the work tree holds the
 * blob's bytes. (git here predates `GIT_ATTR_SOURCE`/`--attr-source`, which would name a tree instead.)
 */
import type { Stats } from 'node:fs';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { ATTRIBUTES_FILE, endsWithOverride, withOverride } from './attributes-override.js';
import { updateGitDirRecord } from './git-guard.js';
import { lstatOrNull, makeWorkspaceDir, readWorkspaceFile, writeWorkspaceFile } from './safe-fs.js';

const log = moduleLogger('handoff/git-attributes');

/** Files known to end with the override, by path, with the stat they had then (checked before every command). */
const known = new Map<string, { ino: number; size: number; mtimeMs: number }>();

function sameStat(a: { ino: number; size: number; mtimeMs: number } | undefined, b: Stats): boolean {
  return a !== undefined && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** Options of {@link ensureHarnessAttributes}. */
export interface EnsureAttributesOptions {
  /** The repository's known-good `.git` record: the override is recorded in it, so the guard keeps it. */
  recordFile?: string | undefined;
}

/**
 * Makes `<workTree>/.git/info/attributes` end with the override (written once, then a stat per call). A
 * repository without a `.git` directory (not cloned yet, a bare mirror) is left alone. Returns true when it wrote.
 */
export async function ensureHarnessAttributes(
  workTree: string,
  options: EnsureAttributesOptions = {},
): Promise<boolean> {
  const gitDir = await lstatOrNull(path.join(workTree, '.git'));
  if (!gitDir?.isDirectory()) return false;
  const file = path.join(workTree, ATTRIBUTES_FILE);
  const before = await lstatOrNull(file);
  if (before && sameStat(known.get(file), before)) return false;
  const text = (await readWorkspaceFile(workTree, ATTRIBUTES_FILE).catch(() => null))?.toString('utf8') ?? '';
  const write = !before?.isFile() || !endsWithOverride(text);
  if (write) {
    await makeWorkspaceDir(workTree, '.git/info');
    await writeWorkspaceFile(workTree, ATTRIBUTES_FILE, withOverride(text), { mode: 0o644 });
    if (options.recordFile) await updateGitDirRecord(workTree, options.recordFile, 'info/attributes');
    log.info({ workTree }, 'harness attribute override written');
  }
  const after = await lstatOrNull(file);
  if (after) known.set(file, { ino: after.ino, size: after.size, mtimeMs: after.mtimeMs });
  return write;
}
