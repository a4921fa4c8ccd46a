/** `status`, `runs`, `pause`, `resume`, `cancel`: read and steer runs in the store. */
import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../core/errors.js';
import { cancelRun, pauseRun, resumeRun } from '../orchestrator/controls.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { type NextAction, nextAction } from '../orchestrator/planner.js';
import {
  FeatureSummary,
  knownCostUsd,
  PausedReason,
  type RunRecord,
  RunStatus,
  type SessionRecord,
  type Workspace,
} from '../orchestrator/run-state.js';
import {
  type CliDeps,
  orchestratorOptions,
  type ResolvedDeps,
  resolveDeps,
  withOrchestrator,
} from './context.js';
import {
  elapsedMs,
  formatBar,
  formatDuration,
  formatFields,
  formatMoney,
  formatTable,
  formatTimestamp,
} from './output.js';

/** `nightshift status --json` (DESIGN.md, a contract): exactly these fields. */
export const RunStatusJson = z.strictObject({
  id: z.string(),
  status: RunStatus,
  pausedReason: PausedReason.nullable(),
  /** A local path, or `<url>#<branch>` for a remote workspace. */
  workspace: z.string(),
  features: FeatureSummary,
  /** Finished sessions. */
  sessions: z.number().int().nonnegative(),
  /** Known cost in USD (sessions of models without a price are not included); null when no session has a price. */
  costUsd: z.number().nonnegative().nullable(),
  /** Sessions whose model had no known price (not in costUsd). */
  costUnknownSessions: z.number().int().nonnegative(),
  startedAt: z.string().nullable(),
  updatedAt: z.string(),
});
export type RunStatusJson = z.infer<typeof RunStatusJson>;

/** A workspace as one string: its path, or `<url>#<branch>`. */
export function workspaceLabel(workspace: Workspace): string {
  return workspace.kind === 'local' ? workspace.path : `${workspace.url}#${workspace.branch}`;
}

/** The `status --json` document of a run. */
export function toRunStatusJson(run: RunRecord): RunStatusJson {
  return RunStatusJson.parse({
    id: run.id,
    status: run.status,
    pausedReason: run.pausedReason,
    workspace: workspaceLabel(run.workspace),
    features: {
      total: run.features.total,
      passing: run.features.passing,
      failing: run.features.failing,
      blocked: run.features.blocked,
    },
    sessions: run.counters.sessions,
    costUsd: knownCostUsd(run.counters),
    costUnknownSessions: run.counters.costUnknownSessions,
    startedAt: run.startedAt,
    updatedAt: run.updatedAt,
  });
}

/** `building`, `paused (budget)`: the status with its reason. */
export function statusLabel(run: Pick<RunRecord, 'status' | 'pausedReason'>): string {
  return run.pausedReason ? `${run.status} (${run.pausedReason})` : run.status;
}

/** What the human `status` output shows besides the run record. */
export interface StatusDetails {
  run: RunRecord;
  /** The newest session (finished or in flight), if any. */
  lastSession: SessionRecord | undefined;
  /** The planner's next step for an active run (null otherwise). */
  next: NextAction | null;
  /** Connected workers (null = unknown). */
  workers: number | null;
  now: Date;
}

/** The human `status` output: status and reason, progress, sessions, cost, elapsed, last session, what comes next. */
export function formatRunStatus(details: StatusDetails): string {
  const { run, now } = details;
  const { features, counters, config } = run;
  const status = run.detail ? `${statusLabel(run)}: ${run.detail}` : statusLabel(run);
  const cost = formatRunCost(run);
  const elapsed = elapsedMs(run.startedAt, run.finishedAt ? new Date(run.finishedAt) : now);
  const deadline = config.budgets.deadline ? ` · deadline ${formatTimestamp(config.budgets.deadline)}` : '';
  const fields: Array<[string, string]> = [
    ['run', `${run.id}  (${run.spec.name})`],
    ['status', status],
    ['workspace', workspaceLabel(run.workspace)],
    [
      'features',
      `${formatBar(features.passing, features.total)} ${features.passing}/${features.total} passing · ${features.failing} failing · ${features.blocked} blocked`,
    ],
    ['sessions', `${counters.sessions} of at most ${config.budgets.maxSessions}`],
    ['cost', cost],
    ['elapsed', `${elapsed === null ? 'not started' : formatDuration(elapsed)}${deadline}`],
    ['last session', describeSession(details.lastSession, now)],
    ['next', nextHint(details)],
  ];
  return formatFields(fields);
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

function describeSession(session: SessionRecord | undefined, now: Date): string {
  if (!session) return 'none yet';
  const what = `#${session.seq} ${session.role}${session.featureIds.length ? ` ${session.featureIds.join(', ')}` : ''}`;
  if (!session.finishedAt) return `${what}, running for ${formatDuration(elapsedMs(session.startedAt, now))}`;
  const verdicts = session.verdicts.map((verdict) => `${verdict.featureId} ${verdict.verdict}`).join(', ');
  const outcome = verdicts ? `${session.outcome} (${verdicts})` : (session.outcome ?? 'finished');
  return `${what} → ${outcome}, ${formatDuration(session.durationMs)}, ${formatMoney(session.costUsd)}`;
}

function describeAction(action: NextAction): string {
  switch (action.kind) {
    case 'initialize':
      return 'initializer session (spec → feature list)';
    case 'generate':
      return `generator session on ${action.featureId}`;
    case 'evaluate':
      return `evaluator session on ${action.featureId}`;
    case 'regress':
      return `regression check of ${action.featureIds.length} passing feature(s)`;
    case 'finish':
      return 'finish (every non-blocked feature passes)';
    case 'pause':
      return `pause (${action.reason}: ${action.detail})`;
    case 'fail':
      return `fail (${action.reason})`;
    case 'wait':
      return action.reason;
  }
}

function nextHint({ run, lastSession, next, workers }: StatusDetails): string {
  switch (run.status) {
    case 'paused':
      return run.pausedReason === 'budget' || run.pausedReason === 'deadline'
        ? `raise the limit (e.g. \`nightshift schedule add ${run.id} --budget-usd N --for DURATION\`) or \`nightshift resume ${run.id}\``
        : `\`nightshift resume ${run.id}\``;
    case 'done':
      return `nothing: the app is in ${workspaceLabel(run.workspace)}`;
    case 'failed':
      return `fix the cause above, then \`nightshift resume ${run.id}\``;
    case 'cancelled':
      return 'nothing (cancelled); start a new run with `nightshift run SPEC`';
    default: {
      const step =
        lastSession && !lastSession.finishedAt ? 'the running session ends' : next && describeAction(next);
      const noWorker = workers === 0 ? ' (no worker is connected: start one with `nightshift worker`)' : '';
      return `${step ?? 'the planner decides'}${noWorker}`;
    }
  }
}

async function loadDetails(orchestrator: Orchestrator, runId: string, now: Date): Promise<StatusDetails> {
  const state = await orchestrator.store.loadState(runId);
  const { sessions } = await orchestrator.store.listSessions(runId, { order: 'desc', limit: 1 });
  const active = ['created', 'initializing', 'building'].includes(state.run.status);
  const workers = active ? await orchestrator.queues.sessions.getWorkersCount().catch(() => null) : null;
  return {
    run: state.run,
    lastSession: sessions[0],
    next: active ? nextAction(state, now) : null,
    workers,
    now,
  };
}

async function newestRunId(orchestrator: Orchestrator): Promise<string> {
  const [newest] = await orchestrator.store.listRuns({ limit: 1 });
  if (!newest) {
    throw new InputError('NO_RUNS', 'There are no runs yet.', {
      hint: 'Start one with `nightshift run SPEC` (or try `nightshift demo`).',
    });
  }
  return newest.id;
}

/** The `runs` table. */
export function formatRunsTable(runs: readonly RunRecord[]): string {
  if (runs.length === 0)
    return 'No runs yet. Start one with `nightshift run SPEC` (or try `nightshift demo`).';
  return formatTable(
    ['RUN', 'STATUS', 'FEATURES', 'SESSIONS', 'COST', 'STARTED', 'SPEC'],
    runs.map((run) => [
      run.id,
      statusLabel(run),
      `${formatBar(run.features.passing, run.features.total, 10)} ${run.features.passing}/${run.features.total}`,
      String(run.counters.sessions),
      `${formatMoney(knownCostUsd(run.counters))}${run.counters.costUnknownSessions && knownCostUsd(run.counters) !== null ? ' +?' : ''}`,
      formatTimestamp(run.startedAt),
      run.spec.name,
    ]),
  );
}

interface JsonOptions {
  json?: boolean;
  config?: string;
}

const writeJson = (deps: ResolvedDeps, value: unknown) =>
  deps.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** Registers `status [RUN]`, `runs`, `pause RUN`, `resume RUN`, `cancel RUN` (each with `--json`, `--config FILE`). */
export function registerAdminCommands(program: Command, deps: CliDeps = {}): void {
  const resolved = resolveDeps(deps);
  const open = <T>(options: JsonOptions, fn: (orchestrator: Orchestrator) => Promise<T>) =>
    withOrchestrator(orchestratorOptions(resolved, options.config), ({ orchestrator }) => fn(orchestrator));

  program
    .command('status')
    .description('show one run (or the newest)')
    .argument('[run]', 'run id (default: the newest run)')
    .option('--json', 'print the status as one JSON document')
    .option('--config <file>', 'config file (default: $NIGHTSHIFT_CONFIG or ./nightshift.config.json)')
    .action((runId: string | undefined, options: JsonOptions) =>
      open(options, async (orchestrator) => {
        const id = runId ?? (await newestRunId(orchestrator));
        if (options.json)
          return void writeJson(resolved, toRunStatusJson(await orchestrator.store.getRun(id)));
        resolved.stdout.write(`${formatRunStatus(await loadDetails(orchestrator, id, resolved.now()))}\n`);
      }),
    );

  program
    .command('runs')
    .description('list runs, newest first')
    .option('--json', 'print a JSON array of status documents')
    .option('--config <file>', 'config file')
    .action((options: JsonOptions) =>
      open(options, async (orchestrator) => {
        const runs = await orchestrator.store.listRuns();
        if (options.json) return void writeJson(resolved, runs.map(toRunStatusJson));
        resolved.stdout.write(`${formatRunsTable(runs)}\n`);
      }),
    );

  const control = (
    name: string,
    description: string,
    apply: (orchestrator: Orchestrator, runId: string) => Promise<RunRecord>,
    after: (run: RunRecord) => string,
  ) =>
    program
      .command(name)
      .description(description)
      .argument('<run>', 'run id')
      .option('--json', 'print the new status as one JSON document')
      .option('--config <file>', 'config file')
      .action((runId: string, options: JsonOptions) =>
        open(options, async (orchestrator) => {
          const run = await apply(orchestrator, runId);
          if (options.json) return void writeJson(resolved, toRunStatusJson(run));
          resolved.stdout.write(`${run.id} ${statusLabel(run)}${after(run)}\n`);
        }),
      );

  control(
    'pause',
    'pause a run at the next safe point',
    (orchestrator, id) => pauseRun(orchestrator, id),
    (run) =>
      `: a running session stops at its next turn with a checkpoint. Resume with \`nightshift resume ${run.id}\`.`,
  );
  control(
    'resume',
    'resume a paused run',
    // Re-read: resuming advances the run, which may pause it again at once (a budget still spent).
    async (orchestrator, id) => {
      await resumeRun(orchestrator, id);
      return orchestrator.store.getRun(id);
    },
    (run) =>
      run.status === 'paused'
        ? `: paused again at once${run.detail ? ` (${run.detail})` : ''}.`
        : ': the next session is queued for a worker (`nightshift worker`).',
  );
  control(
    'cancel',
    'cancel a run for good',
    (orchestrator, id) => cancelRun(orchestrator, id),
    () => ': a running session stops at its next turn with a checkpoint; the work stays in git.',
  );
}
