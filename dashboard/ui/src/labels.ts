// One vocabulary for roles and results everywhere in the UI (the CLI's too): roles are initializer, generator and
// evaluator; a regression check is an evaluator session with a `regression` badge; an evaluation's result is its
// verdict, not the loop's `completed`.
import type { SessionRecord } from '../../../orchestrator/run/run-state.js';
import { el } from './dom.js';

/** A role name, with a `regression` badge for regression checks. */
export function roleBadge(role: string | null, kind: string | null): HTMLElement {
  return el(
    'span',
    { class: 'role-cell' },
    el(
      'span',
      { class: `role role-${role ?? 'unknown'}`, 'data-role': role ?? 'unknown' },
      role ?? 'session',
    ),
    kind === 'regress' ? el('span', { class: 'badge kind-regression' }, 'regression') : null,
  );
}

/** How a session's result reads: its label and its tone (the colour). */
export interface SessionResultLabel {
  label: string;
  tone: 'good' | 'bad' | 'warn' | 'running' | 'neutral';
}

const OUTCOME_TONES: Record<string, SessionResultLabel['tone']> = {
  completed: 'good',
  pass: 'good',
  passed: 'good',
  checkpointed: 'warn',
  blocked: 'warn',
  rate_limited: 'warn',
  fail: 'bad',
  failed: 'bad',
  provider_error: 'bad',
  aborted: 'bad',
};

/**
 * The result of a session: the store's `result` when it has one; else, for an evaluation that completed, its
 * verdicts (any fail → fail, any blocked → blocked, else pass); else the loop's outcome.
 */
export function sessionResult(session: SessionRecord): SessionResultLabel {
  if (session.outcome === null) return { label: 'running', tone: 'running' };
  const stored = (session as { result?: unknown }).result;
  if (typeof stored === 'string' && stored !== '')
    return { label: stored, tone: OUTCOME_TONES[stored] ?? 'neutral' };
  if (session.role === 'evaluator' && session.outcome === 'completed' && session.verdicts.length > 0) {
    const values = session.verdicts.map((v) => v.verdict);
    const label = values.includes('fail') ? 'fail' : values.includes('blocked') ? 'blocked' : 'pass';
    return { label, tone: OUTCOME_TONES[label] ?? 'neutral' };
  }
  return { label: session.outcome, tone: OUTCOME_TONES[session.outcome] ?? 'neutral' };
}
