import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { runDataDir, sessionTranscriptPath } from '../core/paths.js';

/** Where session `seq` of run `runId` keeps its transcript (JSONL): the convention of core/paths, shared with roles. */
export function transcriptPath(dataDir: string, runId: string, seq: number): string {
  return sessionTranscriptPath(dataDir, runId, seq);
}

/** The directory holding a run's evaluator evidence (screenshots, Playwright traces). */
export function evidenceDir(dataDir: string, runId: string): string {
  return path.join(runDataDir(dataDir, runId), 'evidence');
}

/**
 * The real path of evidence file `relative` inside the run's evidence dir, or null when it does not exist or
 * resolves (through `..` or a symlink) outside that dir. Model-chosen names must never reach other files.
 */
export async function resolveEvidenceFile(
  dataDir: string,
  runId: string,
  relative: string,
): Promise<string | null> {
  const segments = relative.split(/[/\\]/);
  if (
    relative === '' ||
    path.isAbsolute(relative) ||
    segments.some((s) => s === '..' || s === '' || s.includes('\0'))
  ) {
    return null;
  }
  try {
    const root = await realpath(evidenceDir(dataDir, runId));
    const file = await realpath(path.join(root, ...segments));
    return file.startsWith(root + path.sep) ? file : null;
  } catch {
    return null;
  }
}

/**
 * The evidence URL path (relative to `/api/runs/:id/evidence/`) of an evidence file recorded relative to the data dir
 * (`runs/<runId>/evidence/...`), or null when it lies elsewhere.
 */
export function evidenceUrlPath(runId: string, recorded: string): string | null {
  const normalized = recorded.replaceAll('\\', '/');
  const prefix = `runs/${runId}/evidence/`;
  if (normalized.startsWith(prefix)) return normalized.slice(prefix.length);
  if (!normalized.startsWith('runs/') && !normalized.startsWith('/')) return normalized;
  return null;
}
