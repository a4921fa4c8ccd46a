import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import { checkpoint, ensureRepo, head, isClean, type RepoOptions, type WorkspaceRepo } from './git.js';
import { ensureDefaultIgnores } from './gitignore.js';
import { readWorkspaceFile, writeWorkspaceFile } from './safe-fs.js';
import { type SpecOrigin, specCommitSummary, writePlanRecord } from './spec-origin.js';

/** Options of {@link createWorkspace}. */
export interface CreateWorkspaceOptions extends RepoOptions {
  /** The workspace directory (created when missing). */
  dir: string;
  /** The spec to copy in. */
  specPath: string;
  /** Name of the spec inside the workspace (default `app_spec.md`; pass the spec's basename to keep it). */
  specFileName?: string;
  /** Recorded in the first commit's trailers. */
  runId?: string;
  /** A planned spec's origin: recorded in `.nightshift/plan.md` and in the first commit's body. */
  origin?: SpecOrigin;
}

/** The created workspace. */
export interface CreatedWorkspace {
  repo: WorkspaceRepo;
  /** Workspace-relative name of the spec. */
  specFile: string;
  /** HEAD after creation. */
  commit: string;
}

/**
 * Makes `dir` a workspace: the spec copied in, a git repository on `main`, a `.gitignore` with the
 * default ignores (handoff/gitignore.ts), and a first commit. Accepts a missing or empty directory, or a clean
 * git repository; refuses (with {@link InputError}) a non-empty directory that is not a repository or one with
 * uncommitted changes.
 */
export async function createWorkspace(options: CreateWorkspaceOptions): Promise<CreatedWorkspace> {
  const dir = path.resolve(options.dir);
  const specFile = options.specFileName ?? 'app_spec.md';
  const spec = await readFile(options.specPath).catch((error: unknown) => {
    throw new InputError('SPEC_NOT_FOUND', `cannot read the spec ${options.specPath}`, {
      hint: 'pass the path of an existing spec file (markdown)',
      cause: error,
    });
  });
  await checkDirUsable(dir, options);
  const repo = await ensureRepo(dir, options);
  await mkdir(dir, { recursive: true });
  await writeIfChanged(dir, specFile, spec);
  await ensureDefaultIgnores(dir);
  if (options.origin) await writePlanRecord(dir, options.origin, specFile);
  await checkpoint(repo, {
    role: 'harness',
    runId: options.runId ?? 'create',
    session: 0,
    summary: specCommitSummary(`add the spec (${specFile}) and .gitignore`, options.origin),
  });
  const commit = await head(repo);
  if (commit === null) throw new Error('unreachable: a workspace always has a first commit');
  return { repo, specFile, commit };
}

async function checkDirUsable(dir: string, options: RepoOptions): Promise<void> {
  if (!existsSync(dir)) return;
  const entries = await readdir(dir);
  if (existsSync(path.join(dir, '.git'))) {
    const repo = await ensureRepo(dir, options);
    if ((await head(repo)) !== null && !(await isClean(repo))) {
      throw new InputError('WORKSPACE_DIRTY', `the workspace ${dir} has uncommitted changes`, {
        hint: 'commit or stash them first (git -C <dir> status), or choose another directory',
      });
    }
    return;
  }
  if (entries.length > 0) {
    throw new InputError('WORKSPACE_NOT_EMPTY', `${dir} is not empty and not a git repository`, {
      hint: 'choose an empty or new directory, or make it a git repository and commit its files first',
    });
  }
}

async function writeIfChanged(dir: string, relative: string, content: Buffer): Promise<void> {
  const existing = await readWorkspaceFile(dir, relative, { maxBytes: content.length + 1 }).catch(() => null);
  if (existing?.equals(content)) return;
  await writeWorkspaceFile(dir, relative, content);
}
