/**
 * Live progress of a run in the terminal: one status line redrawn in place on a TTY, or a line per change
 * (not per tick) when the output is a log file or CI.
 */

import type { FeatureSummary, PausedReason, RunStatus, SessionKind } from '../orchestrator/run/index.js';
import type { RoleName } from '../roles/session-result.js';
import { formatProgressLanes, type ProgressLane } from './lanes-format.js';
import { formatBar, formatDuration, formatMoney, type TextSink, truncate } from './output.js';
import { oneLine, terminalSink } from './terminal-text.js';

/** The session in flight, as shown on the progress line. */
export interface ProgressSession {
  role: RoleName;
  /** `regress` for a regression check (shown as `evaluator (regression)`, as in the dashboard). */
  kind?: SessionKind | null;
  /** The feature(s) it works on (none for the initializer). */
  featureIds?: readonly string[];
  /** ISO time it started. */
  startedAt: string;
}

/** One snapshot of a run for the progress line. */
export interface ProgressUpdate {
  run: {
    id: string;
    status: RunStatus;
    pausedReason: PausedReason | null;
    features: FeatureSummary;
    /** Questions to a person; the open ones are shown (`waiting for an answer: Q-1 (F-003)`). */
    questions?: readonly { id: string; featureId: string; answer: string | null }[];
  };
  /** The session in flight, or null between sessions (in lanes: the run's own slot's session, if any). */
  current: ProgressSession | null;
  /** A run in lanes (config `lanes` > 1): its busy lanes, shown instead of the one session in flight. */
  lanes?: readonly ProgressLane[];
  /** Cost so far in USD, the session in flight included (null = unknown). */
  costUsd: number | null;
  /** Milliseconds since the run started (the same elapsed time `status` shows). */
  elapsedMs: number;
  /** Nothing runs and no worker is connected to the queue (`follow` of a run nobody works). */
  noWorker?: boolean;
}

/** How the run ended, for the final line. */
export interface ProgressSummary {
  status: RunStatus;
  pausedReason?: PausedReason | null;
  /** Why it paused or failed. */
  detail?: string | null;
  features: FeatureSummary;
  sessions: number;
  costUsd: number | null;
  elapsedMs: number;
}

/** Where and how progress is drawn. */
export interface ProgressRendererOptions {
  stream: TextSink & { columns?: number };
  /** Redraw in place (a terminal) or print a line per change. */
  isTTY: boolean;
  /** Clock for the running session's age (tests). */
  now?: () => Date;
}

/** Draws progress updates; `done` prints the summary and leaves the cursor on a fresh line. */
export interface ProgressRenderer {
  update(update: ProgressUpdate): void;
  /** A line that stays above the progress line (something the user should see, e.g. the app did not start). */
  note(text: string): void;
  done(summary: ProgressSummary): void;
}

/**
 * `[████░░░░] 3/10 passing · 1 blocked · generator F-004 (2m 10s) · $1.23 · 1h 02m`; with lanes,
 * `… · lanes: 1 F-003 generator · 2 F-004 evaluator · 3 merging F-002 · $1.23 · 1h 02m`.
 */
export function formatProgressLine(update: ProgressUpdate, now: Date): string {
  const { run, current } = update;
  const { passing, total, blocked } = run.features;
  const parts = [
    total > 0 ? `${formatBar(passing, total)} ${passing}/${total} passing` : 'no feature list yet',
  ];
  if (blocked > 0) parts.push(`${blocked} blocked`);
  const open = (run.questions ?? []).filter((question) => question.answer === null);
  if (open.length > 0)
    parts.push(`waiting for an answer: ${open.map((q) => `${q.id} (${q.featureId})`).join(', ')}`);
  if (run.status === 'paused') parts.push(`paused (${run.pausedReason ?? 'user'})`);
  else if (current || update.lanes?.length) {
    if (current) parts.push(describeCurrent(current, now));
    if (update.lanes?.length) parts.push(formatProgressLanes(update.lanes));
  } else if (update.noWorker) parts.push('no worker is connected: start one with `nightshift worker`');
  else parts.push(run.status === 'created' ? 'waiting for a worker' : run.status);
  parts.push(formatMoney(update.costUsd), formatDuration(update.elapsedMs));
  return parts.join(' · ');
}

function describeCurrent(current: ProgressSession, now: Date): string {
  const features = current.featureIds?.length ? ` ${current.featureIds.join(',')}` : '';
  const age = Date.parse(current.startedAt);
  const running = Number.isNaN(age) ? '' : ` (${formatDuration(Math.max(0, now.getTime() - age))})`;
  const role = current.kind === 'regress' ? `${current.role} (regression)` : current.role;
  return `${role}${features}${running}`;
}

/** `session 4: the app did not start (init.sh exited with code 1); last log line: … ; log: <path>` */
export function formatAppStartFailure(event: {
  seq: number;
  role: RoleName;
  exitCode: number | null;
  logTail: readonly string[];
  logFile: string;
}): string {
  const how = event.exitCode === null ? 'did not answer in time' : `exited with code ${event.exitCode}`;
  const after = event.role === 'initializer' ? ' after the initializer' : '';
  const last = event.logTail.at(-1);
  return `session ${event.seq}: the app did not start${after} (init.sh ${how})${last ? `; last log line: ${oneLine(last, 120)}` : ''}; log: ${event.logFile}`;
}

/** The final line: how the run ended, with the totals. */
export function formatProgressSummary(summary: ProgressSummary): string {
  const { passing, total, blocked } = summary.features;
  const reason = summary.pausedReason ? ` (${summary.pausedReason})` : '';
  const detail = summary.detail ? `: ${oneLine(summary.detail, 400)}` : '';
  return (
    `run ${summary.status}${reason}${detail} — ${passing}/${total} features passing, ${blocked} blocked, ` +
    `${summary.sessions} sessions, ${formatMoney(summary.costUsd)}, ${formatDuration(summary.elapsedMs)}`
  );
}

// What a new line is printed for when not on a TTY: progress, not the ticking clock or cost.
function changeKey(update: ProgressUpdate): string {
  const { run, current } = update;
  const { passing, total, blocked } = run.features;
  return [
    run.status,
    run.pausedReason,
    passing,
    total,
    blocked,
    current?.role,
    current?.featureIds?.join(','),
    current?.startedAt,
    update.lanes ? formatProgressLanes(update.lanes) : '',
    update.noWorker,
  ].join('|');
}

/** A renderer for `nightshift run`: redraws one line on a TTY, logs a line per change otherwise. */
export function createProgressRenderer(options: ProgressRendererOptions): ProgressRenderer {
  const now = options.now ?? (() => new Date());
  // Every line is shown as text; erasing the progress line is the one control sequence, on the trusted path.
  const stream = terminalSink(options.stream);
  let lastKey: string | undefined;
  let drawn = false;
  return {
    update(update) {
      const line = formatProgressLine(update, now());
      if (options.isTTY) {
        const width = Math.max(20, (options.stream.columns || 80) - 1);
        // Erased first: the new line overwrites the old one even when it is shorter.
        stream.eraseLine();
        stream.write(truncate(line, width));
        drawn = true;
        return;
      }
      const key = changeKey(update);
      if (key === lastKey) return;
      lastKey = key;
      stream.write(`${line}\n`);
    },
    note(text) {
      if (options.isTTY && drawn) stream.eraseLine();
      stream.write(`${text}\n`);
      // On a TTY the progress line is drawn again at the next update; in a log the next change prints one.
      drawn = false;
    },
    done(summary) {
      if (options.isTTY && drawn) stream.eraseLine();
      stream.write(`${formatProgressSummary(summary)}\n`);
      drawn = false;
    },
  };
}
