/**
 * A run's events as lines a person reads: `logs RUN` prints one per event, `run` and `follow` print the verdicts
 * (and app start failures, merges) above the progress line. Model-written text is escaped for the terminal.
 */
import type { RunEvent } from '../orchestrator/events.js';
import { formatLanesNotice } from '../orchestrator/lanes/lanes-payoff.js';
import { formatMergeNote } from './lanes-format.js';
import { formatDuration, formatMoney } from './output.js';
import { formatAppStartFailure } from './progress.js';
import { oneLine } from './terminal-text.js';

type EventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

const features = (ids: readonly string[]) => (ids.length ? ` ${ids.join(',')}` : '');

/**
 * `F-003 pass`, `F-003 fail (attempt 2): the counter shows 2`, `F-003 blocked: the app did not start`; a regression
 * check says so (`F-001 regression check: fail …`).
 */
export function verdictLine(event: EventOf<'verdict.applied'>): string {
  const check = event.mode === 'regression' ? ' regression check:' : '';
  const attempt = event.verdict === 'fail' && event.mode === 'evaluate' ? ` (attempt ${event.attempts})` : '';
  const why = event.reason
    ? `: ${oneLine(event.reason)}`
    : event.verdict === 'pass'
      ? ''
      : ': no reason given';
  return `${event.featureId}${check} ${event.verdict}${attempt}${why} (session ${event.seq})`;
}

/** The lines `run` and `follow` show above the progress line: verdicts, app start failures, merges. */
export function progressNote(event: RunEvent): string | null {
  if (event.type === 'verdict.applied') return verdictLine(event);
  if (event.type === 'app.start_failed') return formatAppStartFailure(event);
  if (event.type === 'lane.merge') return formatMergeNote(event);
  if (event.type === 'lanes.estimate') return `note: ${formatLanesNotice(event.estimate)}`;
  if (event.type === 'feature.blocked') return `${event.featureId} blocked: ${oneLine(event.reason)}`;
  if (event.type === 'feature.added')
    return `${event.featureId} added by ${event.by}: ${oneLine(event.description)}${event.dependsOn.length ? ` (depends on ${event.dependsOn.join(', ')})` : ''}`;
  if (event.type === 'feature.steered')
    return `${event.featureId} ${event.action === 'note' ? 'noted' : `${event.action}ed`} by ${event.by}${event.text ? `: ${oneLine(event.text)}` : ''}`;
  return null;
}

/** One line for a run event (`logs RUN`), or null for the agent's own events (`logs RUN --session N` shows those). */
export function eventLine(event: RunEvent): string | null {
  const note = progressNote(event);
  if (note) return note;
  switch (event.type) {
    case 'run.created':
      return `run created: spec ${oneLine(event.spec.name)}, workspace ${event.workspace.kind === 'local' ? event.workspace.path : event.workspace.url}`;
    case 'run.status':
      return `run ${event.status}${event.reason ? ` (${event.reason})` : ''}${event.detail ? `: ${oneLine(event.detail)}` : ''}`;
    case 'session.queued':
      return `session ${event.seq} queued: ${event.role}${features(event.featureIds)}`;
    case 'session.started':
      return `session ${event.seq} started: ${event.role}${features(event.featureIds)} on worker ${event.workerId}`;
    case 'session.finished':
      return `session ${event.seq} ${event.role}${features(event.featureIds)} ended ${event.outcome}${event.reason ? `: ${oneLine(event.reason)}` : ''} (${formatDuration(event.durationMs)}, ${formatMoney(event.costUsd)})`;
    case 'verdict.ungrounded':
      return `${event.featureId} pass ${event.final ? 'recorded blocked' : 'sent back'}: not grounded (${oneLine(event.problems.join('; '))})`;
    case 'check.unrecordable':
      return `${event.featureId} pass kept without a recorded check: ${oneLine(event.reason)}`;
    case 'check.replayed':
      return `session ${event.seq} replayed recorded checks (${event.where}): ${event.passed.length} held${event.failed.length ? `, red: ${event.failed.join(',')}` : ''}`;
    case 'feature.regressed':
      return `${event.featureId} regressed: ${oneLine(event.issues[0] ?? 'a regression check failed')}`;
    case 'feature.retried':
      return `${event.featureId} retried`;
    case 'integrity.violation':
      return `session ${event.seq} broke a rule (${event.violation.kind}), reverted: ${oneLine(event.violation.detail)}`;
    case 'budget.exceeded':
      return `stop condition ${event.reason}: ${oneLine(event.detail)}`;
    case 'nightly.summary':
      return `nightly summary: ${event.passing}/${event.total} passing, newly passing ${event.newlyPassing.join(',') || 'none'}, newly failing ${event.newlyFailing.join(',') || 'none'}, blocked ${event.blocked.join(',') || 'none'}, ${formatMoney(event.costUsd)}`;
    case 'notification.failed':
      return `notification ${event.event} to ${event.target} failed after ${event.attempts} attempt(s): ${oneLine(event.error)}`;
    default:
      return null;
  }
}
