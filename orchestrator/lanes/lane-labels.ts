// Pure and dependency-free: the words for what a lane is doing and how a merge ended, shared by the CLI (progress
// line, `status`) and the dashboard's web UI (Lanes card, Now card), so both say the same thing.

/** What a lane is doing now (see orchestrator/lanes/lane-view.ts for how it is read from the run). */
export type LaneStepView =
  | {
      kind: 'session';
      role: string;
      sessionKind: string | null;
      seq: number;
      startedAt: string;
      workerId: string;
    }
  | { kind: 'queued'; role: string; seq: number }
  | { kind: 'waiting-merge' }
  | { kind: 'merging'; seq: number }
  | { kind: 'between' };

/** One merge-queue result, as the views show it. */
export interface LaneMergeLine {
  lane: number;
  featureId: string;
  outcome: 'merged' | 'conflict' | 'rejected' | 'error';
  detail: string;
  head: string | null;
  checked: readonly string[];
}

/** `generator`, `evaluator (regression)`, `queued evaluator`, `waiting to merge`, `merging`, `between steps`. */
export function laneStepLabel(step: LaneStepView): string {
  switch (step.kind) {
    case 'session':
      return step.sessionKind === 'regress' ? `${step.role} (regression)` : step.role;
    case 'queued':
      return `queued ${step.role}`;
    case 'waiting-merge':
      return 'waiting to merge';
    case 'merging':
      return 'merging';
    case 'between':
      return 'between steps';
  }
}

const CONFLICT_PREFIX = 'conflicting files: ';

/** The files of a conflict's detail (`conflicting files: a, b`), or the detail as it is. */
export function conflictFiles(detail: string): string {
  return detail.startsWith(CONFLICT_PREFIX) ? detail.slice(CONFLICT_PREFIX.length) : detail;
}

/**
 * One human line per merge: `lane 2 · F-004 merged (head 1a2b3c4, 3 checks green)`, `lane 1 · F-002: conflict in
 * src/a.ts, src/b.ts — back to a generator`, `lane 3 · F-005: rejected, red checks: F-001: …`, `… merge error: …`.
 */
export function laneMergeText(merge: LaneMergeLine): string {
  const who = `lane ${merge.lane} · ${merge.featureId}`;
  switch (merge.outcome) {
    case 'merged': {
      const head = merge.head ? `head ${merge.head.slice(0, 7)}, ` : '';
      return `${who} merged (${head}${merge.checked.length} check(s) green on the merged head)`;
    }
    case 'conflict':
      return `${who}: conflict in ${conflictFiles(merge.detail) || 'the run branch'} — back to a generator`;
    case 'rejected':
      return `${who}: rejected, red checks on the merged head: ${merge.detail || 'unknown'} — back to a generator`;
    case 'error':
      return `${who}: merge error: ${merge.detail || 'unknown'} (the merge queue tries again)`;
  }
}

/**
 * The lane numbers a view lists (pure): 1…`configured`, free or not, then any higher lane in use (a lane whose
 * feature waits for the merge queue frees its place, so up to 2N lanes hold features).
 */
export function shownLaneNumbers(configured: number, inUse: readonly number[]): number[] {
  const extra = inUse.filter((lane) => lane > configured).sort((a, b) => a - b);
  return [...Array.from({ length: configured }, (_, index) => index + 1), ...extra];
}

/** `3 of 4 busy`, and `· 2 waiting to merge` when lanes wait for the merge queue (pure). */
export function lanesBusyText(
  configured: number,
  lanes: ReadonlyArray<{ step: { kind: LaneStepView['kind'] } }>,
): string {
  const queued = lanes.filter((lane) => lane.step.kind === 'waiting-merge' || lane.step.kind === 'merging');
  const busy = `${lanes.length - queued.length} of ${configured} busy`;
  return queued.length > 0 ? `${busy} · ${queued.length} waiting to merge` : busy;
}
