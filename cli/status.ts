/** What `status` shows of a run, as text and as the `--json` document (one zod schema); pure but for loading. */
import { z } from 'zod';
import { buildRunStory } from '../dashboard/story.js';
import { lastWindowOf, readAllSessions } from '../dashboard/story-load.js';
import { RunStory } from '../dashboard/story-schema.js';
import { describeNextAction } from '../orchestrator/action-words.js';
import { LanesView, loadLanesView, toLaneMergeView } from '../orchestrator/lanes/lane-view.js';
import { usesLanes } from '../orchestrator/lanes/lanes.js';
import { noWorkerNote, workHereCommand } from '../orchestrator/no-worker.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { connectedWorkers } from '../orchestrator/queues.js';
import {
  ACTIVE_STATUSES,
  FeatureSummary,
  FINISHED_STATUSES,
  knownCostUsd,
  PausedReason,
  type RunRecord,
  RunStatus,
  runLockHolder,
  runName,
  type SessionRecord,
  SessionVerdict,
  type Workspace,
} from '../orchestrator/run/index.js';
import { type NextAction, nextAction } from '../orchestrator/scheduler.js';
import { RoleName, SessionOutcome } from '../roles/session-result.js';
import { formatLaneRows } from './lanes-format.js';
import {
  elapsedMs,
  formatBar,
  formatDuration,
  formatFields,
  formatMoney,
  formatTimestamp,
} from './output.js';
import { storyRows } from './status-story.js';
import { oneLine } from './terminal-text.js';

/** The newest session as `status --json` shows it. */
export const StatusSessionJson = z.strictObject({
  seq: z.number().int(),
  role: RoleName,
  /** `regress` for a regression check (an evaluator session over passing features). */
  kind: z.string().nullable(),
  featureIds: z.array(z.string()),
  /** `stopped`: it never recorded an end, and the run has ended (cancelled, failed). */
  state: z.enum(['running', 'finished', 'stopped']),
  outcome: SessionOutcome.nullable(),
  verdicts: z.array(SessionVerdict),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  /** null: unknown (a model without a price) or still running. */
  costUsd: z.number().nullable(),
});

/** `nightshift status --json` (DESIGN.md, a contract): at least what the text view shows. */
export const RunStatusJson = z.strictObject({
  id: z.string(),
  /** What people call the run: `--name`, else the spec's title. */
  name: z.string(),
  status: RunStatus,
  pausedReason: PausedReason.nullable(),
  /** Why it is paused, failed or incomplete (the text after the status in the text view). */
  detail: z.string().nullable(),
  spec: z.strictObject({ name: z.string(), path: z.string() }),
  /** A local path, or `<url>#<branch>` for a remote workspace. */
  workspace: z.string(),
  features: FeatureSummary,
  /** Blocked features and why (what makes a run `incomplete`). */
  blocked: z.array(z.strictObject({ featureId: z.string(), reason: z.string() })),
  /** Finished sessions. */
  sessions: z.number().int().nonnegative(),
  /** Known cost in USD (sessions of models without a price are not included); null when no session has a price. */
  costUsd: z.number().nonnegative().nullable(),
  /** Sessions whose model had no known price (not in costUsd). */
  costUnknownSessions: z.number().int().nonnegative(),
  /** Each limit with what is spent of it (null limit: none). */
  budgets: z.strictObject({
    costUsd: z.number().nonnegative().nullable(),
    maxCostUsd: z.number().nullable(),
    sessions: z.number().int().nonnegative(),
    maxSessions: z.number().int(),
    unpricedTokens: z.number().int().nonnegative(),
    maxUnpricedTokens: z.number().int().nullable(),
    deadline: z.string().nullable(),
  }),
  lastSession: StatusSessionJson.nullable(),
  /** What happens next, as in the text view. */
  next: z.string(),
  /** Connected workers (null: not asked, the run is not active). */
  workers: z.number().int().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** Milliseconds from start to the end (or now); null before it starts. */
  elapsedMs: z.number().nullable(),
  updatedAt: z.string(),
  /**
   * A run in parallel lanes (config `lanes` > 1; null for a serial run): each busy lane (feature, branch, step),
   * the merge queue, and the newest merge results (the dashboard's LanesView).
   */
  lanes: LanesView.nullable(),
  /** The run's story (the run page's story card): features by group, what is stuck and why, the night, what is next. */
  story: RunStory.nullable(),
});
export type RunStatusJson = z.infer<typeof RunStatusJson>;

/** What the `status` output shows besides the run record. */
export interface StatusDetails {
  run: RunRecord;
  /** The newest session (finished or in flight), if any. */
  lastSession: SessionRecord | undefined;
  /** The planner's next step for an active run (null otherwise). */
  next: NextAction | null;
  /** Connected workers (null = unknown). */
  workers: number | null;
  /** Whether a worker holds the lock of an unfinished last session (undefined: not asked). */
  lastSessionHeld?: boolean;
  /** Blocked features and why. */
  blocked?: Array<{ featureId: string; reason: string }>;
  /** A run in lanes: what each lane does (null or absent: a serial run). */
  lanes?: LanesView | null;
  /** The run's story (null or absent: not read). */
  story?: RunStory | null;
  now: Date;
}

/** A workspace as one string: its path, or `<url>#<branch>`. */
export function workspaceLabel(workspace: Workspace): string {
  return workspace.kind === 'local' ? workspace.path : `${workspace.url}#${workspace.branch}`;
}

/** The `status --json` document of a run (details default to none: no session, nothing next). */
export function toRunStatusJson(run: RunRecord, details?: Omit<StatusDetails, 'run'>): RunStatusJson {
  const now = details?.now ?? new Date(run.updatedAt);
  const full: StatusDetails = details
    ? { ...details, run }
    : { run, lastSession: undefined, next: null, workers: null, now };
  const { budgets } = run.config;
  return RunStatusJson.parse({
    id: run.id,
    name: runName(run),
    status: run.status,
    pausedReason: run.pausedReason,
    detail: run.detail,
    spec: { name: run.spec.name, path: run.spec.path },
    workspace: workspaceLabel(run.workspace),
    features: {
      total: run.features.total,
      passing: run.features.passing,
      failing: run.features.failing,
      blocked: run.features.blocked,
    },
    blocked: full.blocked ?? [],
    sessions: run.counters.sessions,
    costUsd: knownCostUsd(run.counters),
    costUnknownSessions: run.counters.costUnknownSessions,
    budgets: {
      costUsd: knownCostUsd(run.counters),
      maxCostUsd: budgets.maxCostUsd,
      sessions: run.counters.sessions,
      maxSessions: budgets.maxSessions,
      unpricedTokens: run.counters.unpricedTokens ?? 0,
      maxUnpricedTokens: budgets.maxUnpricedTokens ?? null,
      deadline: budgets.deadline ?? null,
    },
    lastSession: full.lastSession ? sessionJson(full.lastSession, run, full.lastSessionHeld) : null,
    next: nextHint(full),
    workers: full.workers,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    elapsedMs: runElapsedMs(run, now),
    updatedAt: run.updatedAt,
    lanes: full.lanes ?? null,
    story: full.story ?? null,
  });
}

function sessionJson(
  session: SessionRecord,
  run: RunRecord,
  held: boolean | undefined,
): z.infer<typeof StatusSessionJson> {
  return {
    seq: session.seq,
    role: session.role,
    kind: session.kind,
    featureIds: session.featureIds,
    state: sessionState(session, run, held),
    outcome: session.outcome,
    verdicts: session.verdicts,
    startedAt: session.startedAt,
    finishedAt: session.finishedAt,
    durationMs: session.durationMs,
    costUsd: session.costUsd,
  };
}

/**
 * A session without an end is `running` while the run is live and a worker holds its lock, `stopped` once the run
 * has ended or nobody holds it (its worker is gone: it is done again from its last commit when the run goes on).
 */
function sessionState(
  session: SessionRecord,
  run: RunRecord,
  held: boolean | undefined,
): 'running' | 'finished' | 'stopped' {
  if (session.finishedAt) return 'finished';
  return FINISHED_STATUSES.includes(run.status) || held === false ? 'stopped' : 'running';
}

/** Elapsed time of a run: from its start to its end, or to now while it is not finished. */
export function runElapsedMs(run: RunRecord, now: Date): number | null {
  return elapsedMs(run.startedAt, run.finishedAt ? new Date(run.finishedAt) : now);
}

/** `building`, `paused (budget)`: the status with its reason. */
export function statusLabel(run: Pick<RunRecord, 'status' | 'pausedReason'>): string {
  return run.pausedReason ? `${run.status} (${run.pausedReason})` : run.status;
}

/** The human `status` output: status and reason, progress, sessions, cost, elapsed, last session, what comes next. */
export function formatRunStatus(details: StatusDetails): string {
  const { run, now } = details;
  const { features, counters, config } = run;
  const status = run.detail ? `${statusLabel(run)}: ${oneLine(run.detail, 400)}` : statusLabel(run);
  const elapsed = runElapsedMs(run, now);
  const deadline = config.budgets.deadline ? ` · deadline ${formatTimestamp(config.budgets.deadline)}` : '';
  const story = details.story ? storyRows(details.story) : null;
  const fields: Array<[string, string]> = [
    ['run', `${run.id}  ${oneLine(runName(run))}  (${oneLine(run.spec.name)})`],
    ['status', status],
    ['workspace', workspaceLabel(run.workspace)],
    ...(story?.standing ?? [
      [
        'features',
        `${formatBar(features.passing, features.total)} ${features.passing}/${features.total} passing · ${features.failing} failing · ${features.blocked} blocked`,
      ],
      ...blockedRows(details.blocked ?? []),
    ]),
    ['sessions', `${counters.sessions} of at most ${config.budgets.maxSessions}`],
    ['cost', formatRunCost(run)],
    ['elapsed', `${elapsed === null ? 'not started' : formatDuration(elapsed)}${deadline}`],
    ...(story?.night ?? []),
    ...(details.lanes ? formatLaneRows(details.lanes, now) : []),
    ['last session', describeSession(details.lastSession, run, now, details.lastSessionHeld)],
    ['next', nextHint(details)],
    ...(story?.upcoming ?? []),
  ];
  return formatFields(fields);
}

/** One `blocked  F-003: why` row per blocked feature, at most five. */
function blockedRows(blocked: NonNullable<StatusDetails['blocked']>): Array<[string, string]> {
  const rows = blocked
    .slice(0, 5)
    .map(({ featureId, reason }): [string, string] => ['blocked', `${featureId}: ${oneLine(reason, 300)}`]);
  if (blocked.length > 5)
    rows.push(['blocked', `… and ${blocked.length - 5} more (\`status --json\` lists them all)`]);
  return rows;
}

/**
 * The cost line: the known cost against the cap, and for models without a price, how many sessions are
 * left out and the tokens they used against their budget. Never `$0.00` for an unknown cost.
 */
export function formatRunCost(run: Pick<RunRecord, 'counters' | 'config'>): string {
  const { counters, config } = run;
  const { maxCostUsd, maxUnpricedTokens } = config.budgets;
  const known = knownCostUsd(counters);
  const cap = maxCostUsd === null ? 'no cost cap' : `of ${formatMoney(maxCostUsd)}`;
  const base = known === null ? 'unknown' : `${formatMoney(known)} ${cap}`;
  if (!counters.costUnknownSessions) return base;
  const tokens = `${formatTokens(counters.unpricedTokens ?? 0)}${maxUnpricedTokens ? ` of ${formatTokens(maxUnpricedTokens)}` : ''} tokens`;
  return `${base} (+${counters.costUnknownSessions} sessions of unknown cost: models without a price, ${tokens})`;
}

function formatTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 1_000) return `${(tokens / 1_000).toFixed(1)}k`;
  return String(tokens);
}

/** `evaluator (regression)` for a regression check: the dashboard's role names and badge. */
export function roleLabel(session: Pick<SessionRecord, 'role' | 'kind'>): string {
  return session.kind === 'regress' ? `${session.role} (regression)` : session.role;
}

function describeSession(
  session: SessionRecord | undefined,
  run: RunRecord,
  now: Date,
  held: boolean | undefined,
): string {
  if (!session) return 'none yet';
  const what = `#${session.seq} ${roleLabel(session)}${session.featureIds.length ? ` ${session.featureIds.join(', ')}` : ''}`;
  const state = sessionState(session, run, held);
  if (state === 'stopped' && !FINISHED_STATUSES.includes(run.status)) {
    return `${what}, stopped without a result (no worker works it): done again from its last commit when the run goes on`;
  }
  if (state === 'stopped') return `${what}, stopped when the run ended ${run.status}`;
  if (state === 'running') return `${what}, running for ${formatDuration(elapsedMs(session.startedAt, now))}`;
  const verdicts = session.verdicts.map((verdict) => `${verdict.featureId} ${verdict.verdict}`).join(', ');
  const outcome = verdicts ? `${session.outcome} (${verdicts})` : (session.outcome ?? 'finished');
  return `${what} → ${outcome}, ${formatDuration(session.durationMs)}, ${formatMoney(session.costUsd)}`;
}

function nextHint({ run, lastSession, lastSessionHeld, next, workers, lanes }: StatusDetails): string {
  switch (run.status) {
    case 'paused':
      return run.pausedReason === 'budget'
        ? `raise the budget and go on: \`nightshift resume ${run.id} --budget-usd N\` (or --max-sessions N)`
        : run.pausedReason === 'deadline'
          ? `\`nightshift resume ${run.id}\` (add --for DURATION for a new deadline)`
          : run.pausedReason === 'harness-error' || run.pausedReason === 'no-progress'
            ? `fix the cause above (the worker log has the whole error), then \`nightshift resume ${run.id}\``
            : `\`nightshift resume ${run.id}\``;
    case 'done':
      return `nothing: the app is in ${workspaceLabel(run.workspace)} (\`${workHereCommand(run)} --new\` starts a new run on it)`;
    case 'incomplete':
      return `fix what blocks the features above, then \`nightshift resume ${run.id}\` retries them`;
    case 'failed':
      return `fix the cause above, then \`nightshift resume ${run.id}\``;
    case 'cancelled':
      return `nothing (cancelled); a new run on its workspace: \`${workHereCommand(run)} --new\``;
    default: {
      // With lanes, the serial planner's one next step is not what happens: each lane goes on by itself.
      const step = lanes?.lanes.length
        ? 'each busy lane goes on with its feature (lanes above); free lanes take the next features'
        : lastSession && !lastSession.finishedAt && lastSessionHeld !== false
          ? 'the running session ends'
          : next &&
            describeNextAction(next.kind === 'pause' ? { ...next, detail: oneLine(next.detail) } : next);
      const noWorker = workers === 0 ? ` (${noWorkerNote(run)})` : '';
      return `${step ?? 'the planner decides'}${noWorker}`;
    }
  }
}

/** Reads what `status` shows of a run: its record, newest session, blocked features, next step and workers. */
export async function loadDetails(
  orchestrator: Orchestrator,
  runId: string,
  now: Date,
): Promise<StatusDetails> {
  const { store } = orchestrator;
  const state = await store.loadState(runId);
  // One read of the history and of the latest events feeds the last session, the merges and the story.
  const [sessions, events] = await Promise.all([
    readAllSessions(store, runId),
    store.readEvents(runId, { latest: true, count: EVENT_SCAN }),
  ]);
  const merges = usesLanes(state.run.config)
    ? events.flatMap(({ event }) => toLaneMergeView(event) ?? []).reverse()
    : [];
  const lanes = await loadLanesView(store, state.run, merges);
  const active = ACTIVE_STATUSES.includes(state.run.status);
  const workers = active ? await connectedWorkers(orchestrator.queues) : null;
  const last = sessions.at(-1);
  const lastSessionHeld =
    last && !last.finishedAt
      ? (await runLockHolder(orchestrator.redis, orchestrator.prefix, runId, last.lane)) !== null
      : undefined;
  return {
    run: state.run,
    lastSession: last,
    ...(lastSessionHeld === undefined ? {} : { lastSessionHeld }),
    next: active ? nextAction(state, now) : null,
    workers,
    blocked: state.features
      .filter((feature) => feature.blocked && !feature.passes)
      .map((feature) => ({ featureId: feature.id, reason: feature.blockedReason ?? 'blocked' })),
    lanes,
    story: RunStory.parse(buildRunStory({ state, sessions, lastWindow: lastWindowOf(events), now })),
    now,
  };
}

/** Events searched for merge results and the newest nightly summary (agent events are interleaved). */
const EVENT_SCAN = 2000;

/** The full `status --json` document of a run, read from the store. */
export async function statusJsonOf(
  orchestrator: Orchestrator,
  runId: string,
  now: Date,
): Promise<RunStatusJson> {
  const { run, ...details } = await loadDetails(orchestrator, runId, now);
  return toRunStatusJson(run, details);
}
