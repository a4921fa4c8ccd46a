/** `nightshift runs --status … --workspace …`: which runs the list shows. Parsing names a bad value once. */
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import { ACTIVE_STATUSES, FINISHED_STATUSES, type RunRecord, RunStatus } from '../orchestrator/run/index.js';

/** Words `--status` takes besides the statuses themselves. */
const STATUS_GROUPS: Readonly<Record<string, readonly RunStatus[]>> = {
  active: ACTIVE_STATUSES,
  finished: FINISHED_STATUSES,
};

/** `--status done,incomplete` (also `active`, `finished`): the statuses asked for, each checked. */
export function parseStatusList(value: string): RunStatus[] {
  const words = value
    .split(',')
    .map((word) => word.trim().toLowerCase())
    .filter(Boolean);
  const known = [...RunStatus.options, ...Object.keys(STATUS_GROUPS)];
  const statuses = new Set<RunStatus>();
  for (const word of words) {
    const group = STATUS_GROUPS[word];
    const parsed = RunStatus.safeParse(word);
    if (group) for (const status of group) statuses.add(status);
    else if (parsed.success) statuses.add(parsed.data);
    else {
      throw new InputError(
        'OPTION_INVALID',
        `--status takes run statuses separated by commas; "${word}" is not one${didYouMean(word, known)}.`,
        { hint: `e.g. --status done,incomplete; statuses: ${known.join(', ')}` },
      );
    }
  }
  if (statuses.size === 0) {
    throw new InputError('OPTION_INVALID', `--status needs at least one status, not "${value}".`, {
      hint: 'e.g. --status paused,failed',
    });
  }
  return [...statuses];
}

/** A path as the file system knows it (links resolved) when it exists, else as written. */
function realPath(target: string): string {
  try {
    return fs.realpathSync.native(target);
  } catch {
    return path.resolve(target);
  }
}

/**
 * Whether a run works in `workspace`: a local directory (compared by real path, so a link or a relative path
 * finds it) or a remote URL (`url` or `url#branch`).
 */
export function runInWorkspace(run: Pick<RunRecord, 'workspace'>, workspace: string, cwd: string): boolean {
  if (run.workspace.kind === 'remote') {
    return workspace === run.workspace.url || workspace === `${run.workspace.url}#${run.workspace.branch}`;
  }
  return realPath(run.workspace.path) === realPath(path.resolve(cwd, workspace));
}
