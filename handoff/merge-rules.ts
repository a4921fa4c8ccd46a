/**
 * Mechanical merges (issue 29): app-file conflicts a rule fits are resolved by the harness, not a model.
 * - text: in every conflict hunk both sides only added lines at the same place (the base part of the hunk is
 *   empty): both kept, the run branch's lines first. Decided from the index's three stages by `git merge-file
 *   --diff3` with labels no file can contain, never by guessing at markers in the work tree;
 * - `*.json` manifests: merged key by key when the sides touched different keys (handoff/json-merge.ts);
 * - npm lockfiles: regenerated from the merged manifest by the package manager in the box (an injected
 *   {@link LockfileRegenerator}); without one, or when it fails, not mechanical.
 * Anything else (an edit against an edit, a deleted file, a binary) stays a conflict for a model. Nothing here runs
 * what the workspace controls: git only compares texts; npm runs in the box, behind the regenerator.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { moduleLogger } from '../core/log.js';
import { askGit, runGit, type WorkspaceRepo } from './git.js';
import { mergeJsonText } from './json-merge.js';
import { writeWorkspaceFile } from './safe-fs.js';

const log = moduleLogger('handoff/merge-rules');

/** Lockfiles npm regenerates from its manifest (`package.json` in the same directory). */
const NPM_LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json'];
/** Lockfiles of other package managers: never merged as text or JSON; a model resolves them. */
const OTHER_LOCKFILES = ['yarn.lock', 'pnpm-lock.yaml', 'bun.lockb', 'Cargo.lock', 'poetry.lock', 'go.sum'];

/** How a lockfile regeneration ended; a failure says why (it goes to the model with the conflict). */
export type LockfileRegeneration = { ok: true } | { ok: false; reason: string };

/**
 * Rewrites `lockfile` (workspace-relative) from the manifest next to it, in the box with the run's network policy
 * (`npm install --package-lock-only`); the merge's manifest is already in the work tree.
 */
export type LockfileRegenerator = (repo: WorkspaceRepo, lockfile: string) => Promise<LockfileRegeneration>;

/** Options of the mechanical merge rules. */
export interface MergeRules {
  /** Which side of the merge is the run branch (`ours` in the merge queue, `theirs` merging into a lane): its lines go first. */
  runBranch: 'ours' | 'theirs';
  /** Regenerates npm lockfiles in the box; absent: lockfile conflicts are not mechanical. */
  regenerateLockfile?: LockfileRegenerator;
}

/** Which conflicted files the rules resolved (written and staged) and which still need a model. */
export interface RulesOutcome {
  resolved: string[];
  remaining: string[];
}

/**
 * Resolves the conflicted `files` of the merge in progress that a rule fits: each is written and staged. Lockfiles
 * are regenerated last, and only when nothing else is left for a model (their manifest must be final).
 */
export async function resolveByRules(
  repo: WorkspaceRepo,
  files: readonly string[],
  rules: MergeRules,
): Promise<RulesOutcome> {
  const resolved: string[] = [];
  const remaining: string[] = [];
  const lockfiles: string[] = [];
  for (const file of files) {
    if (NPM_LOCKFILES.includes(path.posix.basename(file))) lockfiles.push(file);
    else if ((await resolveFile(repo, file, rules)) === 'resolved') resolved.push(file);
    else remaining.push(file);
  }
  for (const lockfile of lockfiles) {
    if (remaining.length === 0 && (await regenerateLockfile(repo, lockfile, rules))) resolved.push(lockfile);
    else remaining.push(lockfile);
  }
  if (resolved.length > 0) await runGit(repo, ['add', '--', ...resolved]);
  if (resolved.length > 0 || remaining.length > 0)
    log.info({ dir: repo.dir, resolved, remaining }, 'mechanical merge rules applied');
  return { resolved, remaining };
}

/** The three versions of a conflicted file (base, ours, theirs); undefined when a stage is missing. */
async function stages(repo: WorkspaceRepo, file: string): Promise<[string, string, string] | undefined> {
  const listed = await askGit(repo, ['ls-files', '-u', '-z', '--', file]);
  const present = new Set(
    listed
      .split('\0')
      .filter(Boolean)
      .map((entry) => /^\d+ [0-9a-f]+ (\d)\t/.exec(entry)?.[1]),
  );
  // Added on both sides, or deleted on one: not a pure addition to a shared file.
  if (!['1', '2', '3'].every((stage) => present.has(stage))) return undefined;
  const [base, ours, theirs] = await Promise.all(
    [1, 2, 3].map((stage) => runGit(repo, ['show', `:${stage}:${file}`])),
  );
  return [base as string, ours as string, theirs as string];
}

async function resolveFile(
  repo: WorkspaceRepo,
  file: string,
  rules: MergeRules,
): Promise<'resolved' | 'not mechanical'> {
  if (OTHER_LOCKFILES.includes(path.posix.basename(file))) return 'not mechanical';
  const versions = await stages(repo, file).catch(() => undefined);
  if (!versions || versions.some((text) => text.includes('\0'))) return 'not mechanical';
  const [base, ours, theirs] = versions;
  const [runSide, laneSide] = rules.runBranch === 'ours' ? [ours, theirs] : [theirs, ours];
  const merged = file.endsWith('.json')
    ? mergeJsonText(base, runSide, laneSide)
    : await mergeAddedLines(repo, base, runSide, laneSide);
  if (merged === undefined) return 'not mechanical';
  await writeWorkspaceFile(repo.dir, file, merged);
  return 'resolved';
}

/**
 * Both sides' lines where, in every conflict hunk, both only added lines at the same place: the run branch's
 * first. Undefined when a hunk replaces or deletes a base line (an edit: a model must look).
 */
export async function mergeAddedLines(
  repo: WorkspaceRepo,
  base: string,
  runSide: string,
  laneSide: string,
): Promise<string | undefined> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nightshift-merge-'));
  try {
    const [basePath, runPath, lanePath] = ['base', 'run', 'lane'].map((name) => path.join(dir, name)) as [
      string,
      string,
      string,
    ];
    await Promise.all([
      writeFile(basePath, base),
      writeFile(runPath, runSide),
      writeFile(lanePath, laneSide),
    ]);
    // Labels with a random tail: a marker line of this output cannot be a line of any of the three files.
    const label = randomUUID();
    const merged = await runGit(repo, [
      'merge-file',
      '-p',
      '--diff3',
      `--marker-size=${MARKER_SIZE}`,
      '-L',
      `run-${label}`,
      '-L',
      `base-${label}`,
      '-L',
      `lane-${label}`,
      runPath,
      basePath,
      lanePath,
    ]);
    return keepBothAdditions(merged, label);
  } catch (error) {
    log.warn({ err: error }, 'git merge-file failed: the conflict is left to a model');
    return undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const MARKER_SIZE = 32;

/** Replaces each diff3 hunk of `git merge-file` output whose base part is empty by its run part then its lane part. */
function keepBothAdditions(merged: string, label: string): string | undefined {
  const marker = (char: string, name?: string) =>
    `${char.repeat(MARKER_SIZE)}${name ? ` ${name}-${label}` : ''}`;
  const open = marker('<', 'run');
  const baseStart = marker('|', 'base');
  const middle = marker('=');
  const close = marker('>', 'lane');
  const out: string[] = [];
  let part: 'outside' | 'run' | 'base' | 'lane' = 'outside';
  let hunk = { run: [] as string[], base: [] as string[], lane: [] as string[] };
  for (const line of merged.split('\n')) {
    if (part === 'outside' && line === open) part = 'run';
    else if (part === 'run' && line === baseStart) part = 'base';
    else if (part === 'base' && line === middle) part = 'lane';
    else if (part === 'lane' && line === close) {
      if (hunk.base.length > 0) return undefined;
      out.push(...hunk.run, ...hunk.lane);
      hunk = { run: [], base: [], lane: [] };
      part = 'outside';
    } else if (part === 'outside') out.push(line);
    else hunk[part].push(line);
  }
  return part === 'outside' ? out.join('\n') : undefined;
}

/** The lockfile regenerated from the merged manifest, when a regenerator is given and succeeds. */
async function regenerateLockfile(
  repo: WorkspaceRepo,
  lockfile: string,
  rules: MergeRules,
): Promise<boolean> {
  if (!rules.regenerateLockfile) return false;
  const versions = await stages(repo, lockfile).catch(() => undefined);
  // npm starts from the run branch's lockfile (never a file with conflict markers) and the merged manifest.
  const start = versions?.[rules.runBranch === 'ours' ? 1 : 2];
  if (start === undefined) return false;
  await writeWorkspaceFile(repo.dir, lockfile, start);
  const outcome = await rules
    .regenerateLockfile(repo, lockfile)
    .catch((error: unknown): LockfileRegeneration => ({ ok: false, reason: String(error) }));
  if (outcome.ok) return true;
  log.warn({ lockfile, reason: outcome.reason }, 'lockfile not regenerated: left to a model');
  // Its conflict markers back, for the model that resolves it.
  await runGit(repo, ['checkout', '-m', '--', lockfile]);
  return false;
}
