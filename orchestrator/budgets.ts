import type { RunState } from './run-state.js';

/** A reason to pause the run before the next session. */
export interface StopCondition {
  reason: 'budget' | 'deadline' | 'stuck';
  detail: string;
}

/** Where a run stands against its budgets, for a mid-session check or a status display. */
export interface BudgetStatus {
  /** Known cost of finished sessions plus the running session's cost so far. */
  costUsd: number;
  maxCostUsd: number;
  remainingUsd: number;
  /** Finished sessions. */
  sessions: number;
  maxSessions: number;
  remainingSessions: number;
  deadline: string | null;
  /** Milliseconds to the deadline (negative once passed); null without a deadline. */
  remainingMs: number | null;
  /** Sessions whose cost is unknown (not included in costUsd). */
  costUnknownSessions: number;
  /** Set when the run must stop now: the running session should checkpoint at its next turn. */
  stop: StopCondition | null;
}

const usd = (value: number) => `$${value.toFixed(2)}`;

/**
 * The run's budget position; `sessionCostUsd` is the running session's cost so far. `stop` says whether the cost
 * budget or the deadline is crossed (the session-count and no-progress limits apply between sessions only).
 */
export function budgetStatus(state: Pick<RunState, 'run'>, now: Date, sessionCostUsd = 0): BudgetStatus {
  const { counters, config } = state.run;
  const { maxCostUsd, maxSessions, deadline } = config.budgets;
  const costUsd = counters.costUsd + sessionCostUsd;
  const remainingMs = deadline ? Date.parse(deadline) - now.getTime() : null;
  let stop: StopCondition | null = null;
  if (costUsd >= maxCostUsd) {
    stop = { reason: 'budget', detail: `cost ${usd(costUsd)} reached the budget of ${usd(maxCostUsd)}` };
  } else if (remainingMs !== null && remainingMs <= 0) {
    stop = { reason: 'deadline', detail: `deadline ${deadline} passed` };
  }
  return {
    costUsd,
    maxCostUsd,
    remainingUsd: Math.max(0, maxCostUsd - costUsd),
    sessions: counters.sessions,
    maxSessions,
    remainingSessions: Math.max(0, maxSessions - counters.sessions),
    deadline: deadline ?? null,
    remainingMs,
    costUnknownSessions: counters.costUnknownSessions,
    stop,
  };
}

/** For a running session: the reason to checkpoint at the next turn (cost so far over budget, deadline), or null. */
export function shouldCheckpointNow(
  state: Pick<RunState, 'run'>,
  now: Date,
  sessionCostUsd: number,
): StopCondition | null {
  return budgetStatus(state, now, sessionCostUsd).stop;
}

/**
 * Between sessions: pause `budget` (cost or session count reached), `deadline` (passed) or `stuck`
 * (that many evaluations in a row without a new pass); null to go on. Checked in that order.
 */
export function checkStopConditions(state: Pick<RunState, 'run'>, now: Date): StopCondition | null {
  const status = budgetStatus(state, now);
  if (status.stop?.reason === 'budget') return status.stop;
  const { maxSessions, stuckAfterEvaluations } = state.run.config.budgets;
  if (status.sessions >= maxSessions) {
    return { reason: 'budget', detail: `${status.sessions} sessions reached the limit of ${maxSessions}` };
  }
  if (status.stop) return status.stop;
  const evaluations = state.run.counters.evaluationsSinceLastPass;
  if (evaluations >= stuckAfterEvaluations) {
    return { reason: 'stuck', detail: `${evaluations} evaluations in a row without a new pass` };
  }
  return null;
}
