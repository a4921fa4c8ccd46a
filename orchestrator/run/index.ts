// The run's state as the rest of nightshift sees it: the store, the records and statuses, the per-run lock.
// Modules in orchestrator/ that the run files themselves depend on import the files directly (through this
// module they would make a cycle).

export { FeatureNotFoundError, RunNotFoundError, RunVanishedError } from './run-errors.js';
export { type AcquireRunLockOptions, acquireRunLock, runLockHolder } from './run-lock.js';
export type { NewRun } from './run-records.js';
export {
  ACTIVE_STATUSES,
  FeatureState,
  FeatureSummary,
  FINISHED_STATUSES,
  knownCostUsd,
  newRunId,
  PausedReason,
  type RunCounters,
  RunRecord,
  type RunState,
  RunStatus,
  runName,
  SessionKind,
  SessionRecord,
  SessionVerdict,
  Workspace,
} from './run-state.js';
export { RunStore } from './run-store.js';
export { RunTransitionError, resumeStatus, STATUS_TRANSITIONS } from './transitions.js';
