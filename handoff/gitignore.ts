/**
 * The default ignores merged into a workspace's `.gitignore` before harness commits, so that `git add -A`
 * never commits dependencies, build output or data the app created (node_modules, dist, *.db…).
 */
import { WORKSPACE_FILES } from './formats.js';
import { readWorkspaceText, writeWorkspaceFile } from './safe-fs.js';

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

/** Merges the default ignores into the workspace's `.gitignore` (never following a link); true when it changed. */
export async function ensureDefaultIgnores(workspace: string): Promise<boolean> {
  const existing = (await readWorkspaceText(workspace, WORKSPACE_FILES.gitignore)) ?? '';
  const merged = mergeIgnores(existing);
  if (merged === existing) return false;
  await writeWorkspaceFile(workspace, WORKSPACE_FILES.gitignore, merged);
  return true;
}
