/**
 * One open run per workspace: a second run on a workspace whose run is still open (active, paused or failed)
 * would take over its feature list while the first one waits for good. Starting a run checks the runs in the
 * store, under a short per-workspace mutex so two starts at once cannot both pass the check.
 */
import { createHash, randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import type { Orchestrator } from './orchestrator.js';
import type { RunRecord, RunStatus, Workspace } from './run/run-state.js';

/** Statuses in which a run still owns its workspace (it can go on). */
export const OPEN_STATUSES: readonly RunStatus[] = [
  'created',
  'initializing',
  'building',
  'paused',
  'failed',
];

/** How long a start may hold a workspace's mutex (creating a workspace, adopting one, pushing a first commit). */
const START_MUTEX_MS = 120_000;

/** Where a run is about to work, as given to startRun. */
export type WorkspaceTarget =
  | { kind: 'local'; dir: string }
  | { kind: 'remote'; url: string; branch?: string };

/** A workspace that already has an open run, or one being started right now. */
export class WorkspaceBusyError extends InputError {
  constructor(where: string, run: RunRecord | undefined, options: { workers?: number | null } = {}) {
    const status = run ? (run.pausedReason ? `${run.status} (${run.pausedReason})` : run.status) : '';
    super(
      'WORKSPACE_BUSY',
      run
        ? `The workspace ${where} already has run ${run.id}, which is ${status}; a second run would take over its feature list.`
        : `Another run is being started on the workspace ${where} right now.`,
      { hint: run ? busyHint(run, options.workers) : 'Wait for it, then see `nightshift runs`.' },
    );
  }
}

/** The way on from a workspace's open run: resume a stopped one, follow (or work) a running one, or end it. */
function busyHint(run: RunRecord, workers: number | null | undefined): string {
  const end = `or end it with \`nightshift cancel ${run.id}\` and run again.`;
  if (run.status === 'paused' || run.status === 'failed') {
    return `Go on with it: \`nightshift resume ${run.id}\`${run.pausedReason === 'budget' ? ' --budget-usd N' : ''}; ${end}`;
  }
  const noWorker =
    workers === 0
      ? ' No worker is connected: start one (`nightshift worker`), or run the same command without --detach to work it here;'
      : '';
  return `It is running: follow it with \`nightshift follow ${run.id}\`.${noWorker} ${end}`;
}

/** Finished statuses after which a workspace takes a new run only when asked (`run … --new`). */
export const ENDED_STATUSES: readonly RunStatus[] = ['done', 'incomplete', 'cancelled'];

/**
 * `run` on a workspace whose run has ended (done, incomplete, cancelled): nothing is started unless `--new` asks
 * for a new run on it. Says which run, how it ended and when.
 */
export class WorkspaceFinishedError extends InputError {
  constructor(where: string, run: RunRecord) {
    const { passing, total } = run.features;
    const when = run.finishedAt ? ` on ${run.finishedAt.slice(0, 16).replace('T', ' ')}Z` : '';
    const how = run.detail ? ` (${run.detail})` : '';
    super(
      'WORKSPACE_FINISHED',
      `The workspace ${where} has a finished run: ${run.id} ended ${run.status}${when}, ${passing}/${total} features passing${how}.`,
      {
        hint: [
          run.status === 'incomplete'
            ? `Retry its blocked features in the same run: \`nightshift resume ${run.id}\`; or start`
            : 'Start',
          'a new run on this workspace: the same command with `--new` (it re-checks what passes, then builds what fails),',
          'or choose another --workspace.',
        ].join(' '),
      },
    );
  }
}

/** The identity of a workspace: its real path, or `<url>#<branch>`. */
export function workspaceIdentity(target: WorkspaceTarget | Workspace): string {
  if (target.kind === 'remote') return `remote:${target.url}#${target.branch ?? 'main'}`;
  const dir = 'dir' in target ? target.dir : target.path;
  return `local:${realOrResolved(dir)}`;
}

function realOrResolved(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** The open run on this workspace, if any. */
export async function openRunOn(
  orchestrator: Pick<Orchestrator, 'store'>,
  target: WorkspaceTarget,
): Promise<RunRecord | undefined> {
  const identity = workspaceIdentity(target);
  const open = await orchestrator.store.listRuns({ status: OPEN_STATUSES });
  return open.find((run) => workspaceIdentity(run.workspace) === identity);
}

/** The newest run on this workspace, whatever its status, if any. */
export async function latestRunOn(
  orchestrator: Pick<Orchestrator, 'store'>,
  target: WorkspaceTarget,
): Promise<RunRecord | undefined> {
  const identity = workspaceIdentity(target);
  return (await orchestrator.store.listRuns()).find((run) => workspaceIdentity(run.workspace) === identity);
}

/** Throws WorkspaceBusyError when the workspace has an open run (checked before anything is written). */
export async function assertWorkspaceFree(
  orchestrator: Pick<Orchestrator, 'store'>,
  target: WorkspaceTarget,
): Promise<void> {
  const open = await openRunOn(orchestrator, target);
  if (open) throw new WorkspaceBusyError(label(target), open);
}

/**
 * Runs `start` holding the workspace's start mutex, after checking it has no open run; the run `start`
 * creates owns the workspace from then on.
 */
export async function withWorkspaceClaim<T>(
  orchestrator: Pick<Orchestrator, 'store' | 'redis' | 'prefix'>,
  target: WorkspaceTarget,
  start: () => Promise<T>,
): Promise<T> {
  const hash = createHash('sha256').update(workspaceIdentity(target)).digest('hex').slice(0, 24);
  const key = `${orchestrator.prefix}workspace-start:${hash}`;
  const token = randomUUID();
  if ((await orchestrator.redis.set(key, token, 'PX', START_MUTEX_MS, 'NX')) !== 'OK') {
    throw new WorkspaceBusyError(label(target), undefined);
  }
  try {
    await assertWorkspaceFree(orchestrator, target);
    return await start();
  } finally {
    await orchestrator.redis.eval(
      `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`,
      1,
      key,
      token,
    );
  }
}

function label(target: WorkspaceTarget): string {
  return target.kind === 'local' ? path.resolve(target.dir) : `${target.url}#${target.branch ?? 'main'}`;
}
