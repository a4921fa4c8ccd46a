/**
 * `nightshift run` on a workspace that already has a run: one way on from every state, never a second open run
 * and never a dead end. Paused or failed → resumed; running → worked here (or refused with --detach); finished →
 * refused, naming the run and offering `--new`.
 */
import { parseDuration } from '../orchestrator/config.js';
import { resumeRun } from '../orchestrator/controls.js';
import { connectedWorkers } from '../orchestrator/queues.js';
import { ACTIVE_STATUSES, type RunRecord } from '../orchestrator/run/index.js';
import type { RunWorkspaceInput } from '../orchestrator/start-run.js';
import {
  ENDED_STATUSES,
  latestRunOn,
  openRunOn,
  WorkspaceBusyError,
  WorkspaceFinishedError,
} from '../orchestrator/workspace-claim.js';
import type { OpenCliContext, ResolvedDeps } from './context.js';
import { preflightForCli } from './preflight.js';
import { statusLabel } from './status.js';

/** What `run` was asked for that matters when the workspace already has a run. */
export interface RunOnWorkspaceOptions {
  /** `--new`: a new run even when the workspace's last run has ended. */
  new?: boolean;
  detach?: boolean;
  prompt?: string;
  budgetUsd?: number | null;
  maxSessions?: number;
  for?: string;
  preflightRequest?: boolean;
}

/**
 * The workspace's open run to go on with, if it has one: a paused or failed run is resumed (with the limits given)
 * and a running one is taken as it is, to be worked here. Returns undefined when a new run may start. Throws
 * WorkspaceBusyError (an open run and `--detach`, `--prompt` or `--new`) or WorkspaceFinishedError (the last run
 * ended and `--new` was not given), before anything is written.
 */
export async function existingRunToGoOn(
  context: OpenCliContext,
  resolved: ResolvedDeps,
  workspace: RunWorkspaceInput,
  options: RunOnWorkspaceOptions,
): Promise<RunRecord | undefined> {
  const where = workspace.kind === 'local' ? workspace.dir : workspace.url;
  const open = await openRunOn(context.orchestrator, workspace);
  if (!open) {
    const last = options.new ? undefined : await latestRunOn(context.orchestrator, workspace);
    if (last && ENDED_STATUSES.includes(last.status)) throw new WorkspaceFinishedError(where, last);
    return undefined;
  }
  if (ACTIVE_STATUSES.includes(open.status)) {
    const workers = await connectedWorkers(context.orchestrator.queues);
    if (options.prompt || options.new || options.detach)
      throw new WorkspaceBusyError(where, open, { workers });
    const who =
      workers === 0
        ? 'no worker is connected'
        : `${workers ?? 'an unknown number of'} worker(s) connected, this one joins them`;
    resolved.stderr.write(
      `run ${open.id} on this workspace is ${statusLabel(open)} (${who}): working it here (the spec given is not read again).\n`,
    );
    return open;
  }
  if (options.prompt || options.new) throw new WorkspaceBusyError(where, open);
  await preflightForCli(context, resolved.env, open.config, {
    request: options.preflightRequest,
    stderr: resolved.stderr,
  });
  await resumeRun(context.orchestrator, open.id, {
    ...(options.budgetUsd !== undefined && { budgetUsd: options.budgetUsd }),
    ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
    ...(options.for !== undefined && { forMs: parseDuration(options.for) }),
  });
  resolved.stderr.write(
    `run ${open.id} on this workspace was ${statusLabel(open)}: resumed (the spec given is not read again; its feature list goes on).\n`,
  );
  return context.orchestrator.store.getRun(open.id);
}
