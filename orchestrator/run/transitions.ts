import { NightshiftError } from '../../core/errors.js';
import type { RunStatus } from './run-state.js';

/**
 * Legal status changes. `cancelled` is final; `done` builds again only when a person adds a feature
 * (`nightshift add`); `incomplete` (blocked features left) goes on when a blocked feature is retried. `failed` is resumable (to `initializing` or `building`):
 * a run fails on causes a user can fix (bad API key, an initializer that cannot produce a feature list), and the
 * work in git is still there. Setting the current status again is always allowed (idempotent; a paused run may
 * change its reason that way).
 */
export const STATUS_TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  // A run created on a workspace whose features all pass (or are blocked) has nothing to do: it ends at once.
  created: ['initializing', 'building', 'paused', 'done', 'incomplete', 'failed', 'cancelled'],
  initializing: ['building', 'paused', 'failed', 'cancelled'],
  building: ['paused', 'done', 'incomplete', 'failed', 'cancelled'],
  paused: ['initializing', 'building', 'failed', 'cancelled'],
  failed: ['initializing', 'building', 'cancelled'],
  // Resumed when a blocked feature is retried.
  incomplete: ['building', 'cancelled'],
  // A person added a feature to the finished run (orchestrator/feature-add.ts).
  done: ['building'],
  cancelled: [],
};

/** A status change the lifecycle does not allow (e.g. anything out of `done` or `cancelled`). */
export class RunTransitionError extends NightshiftError {
  constructor(runId: string, from: RunStatus, to: RunStatus) {
    super('RUN_TRANSITION_INVALID', `Run ${runId} cannot go from ${from} to ${to}.`, {
      hint:
        from === 'done' || from === 'cancelled'
          ? `The run is ${from}; start a new run to build more${from === 'done' ? ', or add a feature to it with `nightshift add`' : ''}.`
          : `Allowed from ${from}: ${STATUS_TRANSITIONS[from].join(', ') || 'nothing'}.`,
      exitCode: 2,
    });
  }
}

/** True when a run may go from `from` to `to`. */
export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return from === to || STATUS_TRANSITIONS[from].includes(to);
}

/** The status a paused or failed run resumes into: `building` once it has a feature list, else `initializing`. */
export function resumeStatus(featureCount: number): RunStatus {
  return featureCount > 0 ? 'building' : 'initializing';
}
