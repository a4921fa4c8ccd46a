/**
 * The default ignores merged into a workspace's `.gitignore` before harness commits, so that `git add -A`
 * never commits dependencies, build output or data the app created (node_modules, dist, *.db…).
 */
import { WORKSPACE_FILES } from './formats.js';
import { readWorkspaceText, UnsafeFileError, type UnsafeFileProblem, writeWorkspaceFile } from './safe-fs.js';

/** Patterns every workspace ignores unless its own `.gitignore` re-includes them with `!pattern`. */
export const DEFAULT_IGNORES: readonly string[] = [
  'node_modules/',
  '.venv/',
  'venv/',
  '__pycache__/',
  '*.pyc',
  'dist/',
  'build/',
  'coverage/',
  '.next/',
  '.nuxt/',
  '.cache/',
  '.parcel-cache/',
  '.turbo/',
  'target/',
  '*.db',
  '*.db-journal',
  '*.sqlite',
  '*.sqlite3',
  '*.log',
  '.env',
  '.env.*',
  '.DS_Store',
];

/** The header above the lines the harness appends. */
export const IGNORE_HEADER = '# nightshift: dependencies, build output and app data are never committed';

/** One spelling per pattern: `/node_modules`, `node_modules` and `node_modules/` are the same here. */
function key(pattern: string): string {
  return pattern.trim().replace(/^\//, '').replace(/\/$/, '');
}

/**
 * The `.gitignore` text with every default pattern the text neither has nor negates appended under
 * {@link IGNORE_HEADER} (pure); the same text when nothing is missing.
 */
export function mergeIgnores(existing: string, defaults: readonly string[] = DEFAULT_IGNORES): string {
  const present = new Set(
    existing
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => key(line.replace(/^!/, ''))),
  );
  const missing = defaults.filter((pattern) => !present.has(key(pattern)));
  if (missing.length === 0) return existing;
  const body = existing === '' || existing.endsWith('\n') ? existing : `${existing}\n`;
  const header = body.includes(IGNORE_HEADER) ? [] : [IGNORE_HEADER];
  return `${body}${body ? '\n' : ''}${[...header, ...missing].join('\n')}\n`;
}

/**
 * Merges the default ignores into the workspace's `.gitignore`; true when it changed. A `.gitignore` that is not a
 * regular file (a link out of the workspace, a FIFO) is never read: it is replaced by a regular file of defaults,
 * since git would not follow it either and what it points at means nothing in the repository.
 */
export async function ensureDefaultIgnores(workspace: string): Promise<boolean> {
  const existing = await readIgnoresOrNothing(workspace);
  const merged = mergeIgnores(existing ?? '');
  if (merged === existing) return false;
  await writeWorkspaceFile(workspace, WORKSPACE_FILES.gitignore, merged);
  return true;
}

/** What a `.gitignore` may be that the harness replaces instead of reading. */
const REPLACEABLE: ReadonlySet<UnsafeFileProblem> = new Set(['symlink', 'not_regular', 'hard_link']);

/** The `.gitignore` text; '' when absent; null when it is not a regular file the harness may read. */
async function readIgnoresOrNothing(workspace: string): Promise<string | null> {
  try {
    return (await readWorkspaceText(workspace, WORKSPACE_FILES.gitignore)) ?? '';
  } catch (error) {
    if (error instanceof UnsafeFileError && REPLACEABLE.has(error.problem)) return null;
    throw error;
  }
}
