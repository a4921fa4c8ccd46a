import { harnessErrorStop, noProgressStop } from './progress-watch.js';
import type { RunState } from './run/run-state.js';

/** A reason to pause the run before the next session. */
export interface StopCondition {
  reason: 'budget' | 'deadline' | 'stuck' | 'harness-error' | 'no-progress';
  detail: string;
}

/** Where a run stands against its budgets, for a mid-session check or a status display. */
export interface BudgetStatus {
  /** Known cost of finished sessions plus the running session's cost so far. */
  costUsd: number;
  /** null: no cost cap. */
  maxCostUsd: number | null;
  /** null: no cost cap. */
  remainingUsd: number | null;
  /** Tokens used by sessions of models without a price (finished ones plus the running one). */
  unpricedTokens: number;
  /** null: no cap. */
  maxUnpricedTokens: number | null;
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

/** What the running session has used so far: its known cost, or (unpriced model) its tokens. */
export interface SessionSpend {
  costUsd?: number;
  unpricedTokens?: number;
}

/**
 * The run's budget position; `session` is what the running session used so far. `stop` says whether the cost
 * budget, the token budget of unpriced models, or the deadline is crossed (the session-count and no-progress
 * limits apply between sessions only).
 */
export function budgetStatus(
  state: Pick<RunState, 'run'>,
  now: Date,
  session: SessionSpend = {},
): BudgetStatus {
  const { counters, config } = state.run;
  const { maxCostUsd, maxSessions, deadline } = config.budgets;
  const maxUnpricedTokens = config.budgets.maxUnpricedTokens ?? null;
  const costUsd = counters.costUsd + (session.costUsd ?? 0);
  const unpricedTokens = (counters.unpricedTokens ?? 0) + (session.unpricedTokens ?? 0);
  const remainingMs = deadline ? Date.parse(deadline) - now.getTime() : null;
  let stop: StopCondition | null = null;
  if (maxCostUsd !== null && costUsd >= maxCostUsd) {
    stop = { reason: 'budget', detail: `cost ${usd(costUsd)} reached the budget of ${usd(maxCostUsd)}` };
  } else if (maxUnpricedTokens !== null && unpricedTokens >= maxUnpricedTokens) {
    stop = {
      reason: 'budget',
      detail: `models without a price used ${unpricedTokens} tokens, the budget of ${maxUnpricedTokens} (set a price in modelSettings, or raise budgets.maxUnpricedTokens)`,
    };
  } else if (remainingMs !== null && remainingMs <= 0) {
    stop = { reason: 'deadline', detail: `deadline ${deadline} passed` };
  }
  return {
    costUsd,
    maxCostUsd,
    remainingUsd: maxCostUsd === null ? null : Math.max(0, maxCostUsd - costUsd),
    unpricedTokens,
    maxUnpricedTokens,
    sessions: counters.sessions,
    maxSessions,
    remainingSessions: Math.max(0, maxSessions - counters.sessions),
    deadline: deadline ?? null,
    remainingMs,
    costUnknownSessions: counters.costUnknownSessions,
    stop,
  };
}

/** For a running session: the reason to checkpoint at the next turn (cost or tokens over budget, deadline), or null. */
export function shouldCheckpointNow(
  state: Pick<RunState, 'run'>,
  now: Date,
  session: SessionSpend | number,
): StopCondition | null {
  return budgetStatus(state, now, typeof session === 'number' ? { costUsd: session } : session).stop;
}

/**
 * Between sessions: pause `budget` (cost or session count reached), `deadline` (passed), `harness-error` (the
 * same harness error on the same step again and again), `stuck` (that many evaluations in a row without a new
 * pass) or `no-progress` (sessions keep starting, nothing lands: orchestrator/progress-watch.ts); null to go on.
 * Checked in that order.
 */
export function checkStopConditions(state: Pick<RunState, 'run'>, now: Date): StopCondition | null {
  const status = budgetStatus(state, now);
  if (status.stop?.reason === 'budget') return status.stop;
  const { maxSessions, stuckAfterEvaluations } = state.run.config.budgets;
  if (status.sessions >= maxSessions) {
    return { reason: 'budget', detail: `${status.sessions} sessions reached the limit of ${maxSessions}` };
  }
  if (status.stop) return status.stop;
  const harnessError = harnessErrorStop(state.run);
  if (harnessError) return harnessError;
  const evaluations = state.run.counters.evaluationsSinceLastPass;
  // Lanes evaluate side by side: the limit is per lane, so N lanes get N times the evaluations.
  if (evaluations >= stuckAfterEvaluations * state.run.config.lanes) {
    return { reason: 'stuck', detail: `${evaluations} evaluations in a row without a new pass` };
  }
  return noProgressStop(state.run, now);
}
