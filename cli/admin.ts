/** `status`, `runs`, `pause`, `resume`, `cancel`: read and steer runs in the store. */
import type { Command } from 'commander';
import { parseDuration } from '../orchestrator/config.js';
import { cancelRun, pauseRun, resumeRun } from '../orchestrator/controls.js';
import { noWorkerNote } from '../orchestrator/no-worker.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { connectedWorkers } from '../orchestrator/queues.js';
import { knownCostUsd, type RunRecord, type RunStatus, runName } from '../orchestrator/run/index.js';
import {
  type CliDeps,
  orchestratorOptions,
  type ResolvedDeps,
  resolveDeps,
  withOrchestrator,
} from './context.js';
import { runOrNewest } from './follow-command.js';
import { budgetUsd, positiveInt } from './options.js';
import { formatBar, formatMoney, formatTable, formatTimestamp } from './output.js';
import { parseStatusList, runInWorkspace } from './runs-filter.js';
import { formatRunStatus, loadDetails, statusJsonOf, statusLabel } from './status.js';
import { oneLine } from './terminal-text.js';

export {
  formatRunCost,
  formatRunStatus,
  RunStatusJson,
  statusLabel,
  toRunStatusJson,
  workspaceLabel,
} from './status.js';

/** The `runs` table. */
export function formatRunsTable(runs: readonly RunRecord[]): string {
  if (runs.length === 0)
    return 'No runs yet. Start one with `nightshift run SPEC` (or try `nightshift demo`).';
  return formatTable(
    ['RUN', 'NAME', 'STATUS', 'FEATURES', 'SESSIONS', 'COST', 'STARTED'],
    runs.map((run) => [
      run.id,
      oneLine(runName(run), 40),
      statusLabel(run),
      `${formatBar(run.features.passing, run.features.total, 10)} ${run.features.passing}/${run.features.total}`,
      String(run.counters.sessions),
      `${formatMoney(knownCostUsd(run.counters))}${run.counters.costUnknownSessions && knownCostUsd(run.counters) !== null ? ' +?' : ''}`,
      formatTimestamp(run.startedAt),
    ]),
  );
}

interface JsonOptions {
  json?: boolean;
  config?: string;
}

interface RunsCliOptions extends JsonOptions {
  status?: RunStatus[];
  workspace?: string;
}

interface ResumeCliOptions extends JsonOptions {
  budgetUsd?: number | null;
  maxSessions?: number;
  for?: string;
}

const writeJson = (deps: ResolvedDeps, value: unknown) =>
  deps.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** Runs `fn` with an orchestrator opened from the command's `--config`, and closes it after. */
type OpenOrchestrator = <T>(
  options: JsonOptions,
  fn: (orchestrator: Orchestrator) => Promise<T>,
) => Promise<T>;

/** Registers `status [RUN]`, `runs`, `pause RUN`, `resume RUN`, `cancel RUN` (each with `--json`, `--config FILE`). */
export function registerAdminCommands(program: Command, deps: CliDeps = {}): void {
  const resolved = resolveDeps(deps);
  const open: OpenOrchestrator = (options, fn) =>
    withOrchestrator(orchestratorOptions(resolved, options.config), ({ orchestrator }) => fn(orchestrator));
  registerStatusCommand(program, resolved, open);
  registerRunsCommand(program, resolved, open);
  registerControlCommand(program, resolved, open, {
    name: 'pause',
    description: 'pause a run at the next safe point',
    apply: (orchestrator, id) => pauseRun(orchestrator, id, 'paused with `nightshift pause`'),
    after: (run) =>
      `: a running session stops at its next turn with a checkpoint. Resume with \`nightshift resume ${run.id}\`.`,
  });
  registerResumeCommand(program, resolved, open);
  registerControlCommand(program, resolved, open, {
    name: 'cancel',
    description: 'cancel a run for good',
    apply: (orchestrator, id) => cancelRun(orchestrator, id),
    after: () => ': a running session stops at its next turn with a checkpoint; the work stays in git.',
  });
}

/** `status [RUN]`: one run (or the newest), as text or JSON. */
function registerStatusCommand(program: Command, resolved: ResolvedDeps, open: OpenOrchestrator): void {
  program
    .command('status')
    .description('show one run (or the newest)')
    .argument('[run]', 'run id (default: the newest run)')
    .option('--json', 'print the status as one JSON document')
    .option('--config <file>', 'config file (default: $NIGHTSHIFT_CONFIG or ./nightshift.config.json)')
    .action((runId: string | undefined, options: JsonOptions) =>
      open(options, async (orchestrator) => {
        const id = await runOrNewest(orchestrator, runId);
        if (options.json)
          return void writeJson(resolved, await statusJsonOf(orchestrator, id, resolved.now()));
        resolved.stdout.write(`${formatRunStatus(await loadDetails(orchestrator, id, resolved.now()))}\n`);
      }),
    );
}

/** `runs`: the runs, newest first, filtered by status and workspace. */
function registerRunsCommand(program: Command, resolved: ResolvedDeps, open: OpenOrchestrator): void {
  program
    .command('runs')
    .description('list runs, newest first')
    .option(
      '--status <list>',
      'only runs in these statuses, comma-separated (also: active, finished), e.g. done,incomplete',
      parseStatusList,
    )
    .option('--workspace <dir>', 'only runs on this workspace (a directory, or a --repo URL)')
    .option('--json', 'print a JSON array of status documents')
    .option('--config <file>', 'config file')
    .action((options: RunsCliOptions) =>
      open(options, async (orchestrator) => {
        const listed = await orchestrator.store.listRuns(options.status ? { status: options.status } : {});
        const workspace = options.workspace;
        const runs = workspace
          ? listed.filter((run) => runInWorkspace(run, workspace, resolved.cwd()))
          : listed;
        if (options.json) {
          const now = resolved.now();
          return void writeJson(
            resolved,
            await Promise.all(runs.map((run) => statusJsonOf(orchestrator, run.id, now))),
          );
        }
        const filtered = Boolean(options.status || workspace);
        resolved.stdout.write(
          filtered && runs.length === 0
            ? 'No runs match (`nightshift runs` without --status and --workspace lists them all).\n'
            : `${formatRunsTable(runs)}\n`,
        );
      }),
    );
}

/** A command that changes one run's status and says what happens next. */
interface RunControl {
  name: string;
  description: string;
  apply: (orchestrator: Orchestrator, runId: string) => Promise<RunRecord>;
  /** What follows the run's id and status in the text output. */
  after: (run: RunRecord) => string;
}

/** `pause RUN` or `cancel RUN`. */
function registerControlCommand(
  program: Command,
  resolved: ResolvedDeps,
  open: OpenOrchestrator,
  control: RunControl,
): void {
  program
    .command(control.name)
    .description(control.description)
    .argument('<run>', 'run id')
    .option('--json', 'print the new status as one JSON document')
    .option('--config <file>', 'config file')
    .action((runId: string, options: JsonOptions) =>
      open(options, async (orchestrator) => {
        const run = await control.apply(orchestrator, runId);
        if (options.json)
          return void writeJson(resolved, await statusJsonOf(orchestrator, run.id, resolved.now()));
        resolved.stdout.write(`${run.id} ${statusLabel(run)}${control.after(run)}\n`);
      }),
    );
}

/** `resume RUN`, with optional new limits. */
function registerResumeCommand(program: Command, resolved: ResolvedDeps, open: OpenOrchestrator): void {
  program
    .command('resume')
    .description('resume a paused or failed run (an incomplete one: retry its blocked features)')
    .argument('<run>', 'run id')
    .option('--budget-usd <n>', 'new cost cap for the whole run in USD ("none": no cap)', budgetUsd)
    .option('--max-sessions <n>', 'new session cap for the whole run', positiveInt('--max-sessions'))
    .option('--for <duration>', 'a new deadline this long from now, e.g. 6h')
    .option('--json', 'print the new status as one JSON document')
    .option('--config <file>', 'config file')
    .action((runId: string, options: ResumeCliOptions) =>
      open(options, async (orchestrator) => {
        const limits = {
          ...(options.budgetUsd !== undefined && { budgetUsd: options.budgetUsd }),
          ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
          ...(options.for !== undefined && { forMs: parseDuration(options.for) }),
        };
        await resumeRun(orchestrator, runId, limits);
        // Re-read: the advance after resuming may already have moved it on.
        const run = await orchestrator.store.getRun(runId);
        if (options.json)
          return void writeJson(resolved, await statusJsonOf(orchestrator, run.id, resolved.now()));
        const workers = await connectedWorkers(orchestrator.queues);
        const who =
          workers === 0 ? `, but ${noWorkerNote(run)}` : ` for a worker (${workers ?? 'unknown'} connected)`;
        resolved.stdout.write(
          `${run.id} ${statusLabel(run)}: the next session is queued${who}. Follow it with \`nightshift follow ${run.id}\`.\n`,
        );
      }),
    );
}
