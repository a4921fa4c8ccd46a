import type { Command } from 'commander';
import { InputError } from '../core/errors.js';
import { parseDuration } from '../orchestrator/config.js';
import { assertRunId } from '../orchestrator/keys.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import {
  addSchedule,
  listSchedules,
  localTimeZone,
  normalizeCron,
  removeSchedule,
  type ScheduleInfo,
  type ScheduleInput,
  validateCron,
  validateTimeZone,
} from '../orchestrator/schedules.js';
import { formatMoney, formatTable, formatTimestamp, type TextSink } from './output.js';
import { terminalSink } from './terminal-text.js';

const CONFIG_OPTION = 'config file (default: $NIGHTSHIFT_CONFIG or ./nightshift.config.json)';

/** What the schedule commands need from the CLI's wiring. */
export interface ScheduleCommandDeps {
  /** Opens an Orchestrator (Redis, store, queues; `configFile` from `--config`), runs `fn` with it, closes it again. */
  withOrchestrator<T>(fn: (orchestrator: Orchestrator) => Promise<T>, configFile?: string): Promise<T>;
  /** Where output goes (default process.stdout). */
  stdout?: TextSink;
  /** Clock for validating the pattern (default: now). */
  now?: () => Date;
}

/** The raw options of `schedule add`. */
export interface ScheduleAddOptions {
  cron: string;
  tz?: string;
  for?: string;
  budgetUsd?: string;
}

/** Validates `schedule add` input before anything connects to Redis; throws InputError naming the bad value. */
export function parseScheduleAdd(runId: string, options: ScheduleAddOptions, now: Date): ScheduleInput {
  assertRunId(runId);
  const tz = validateTimeZone(options.tz ?? localTimeZone());
  const cron = normalizeCron(options.cron);
  validateCron(cron, tz, now.getTime());
  const input: ScheduleInput = { runId, cron, tz };
  if (options.for !== undefined) input.forMs = parseDuration(options.for);
  if (options.budgetUsd !== undefined) {
    const budget = Number(options.budgetUsd);
    if (!options.budgetUsd.trim() || !Number.isFinite(budget) || budget <= 0) {
      throw new InputError(
        'BUDGET_INVALID',
        `--budget-usd "${options.budgetUsd}" is not a positive amount.`,
        {
          hint: 'Give US dollars per window as a number, e.g. --budget-usd 20 or --budget-usd 7.5.',
        },
      );
    }
    input.budgetUsd = budget;
  }
  return input;
}

/** `6h`, `1h30m`, `45m`, `90s`: the largest whole units of a window length. */
export function formatWindow(ms: number | null): string {
  if (ms === null) return '-';
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ];
  let rest = ms;
  let text = '';
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) text += `${count}${unit}`;
    rest -= count * size;
  }
  return rest > 0 || !text ? `${text}${rest}ms` : text;
}

/** One line describing a schedule. */
export function describeSchedule(schedule: ScheduleInfo): string {
  const limits = [
    schedule.forMs !== null ? `for ${formatWindow(schedule.forMs)}` : 'no window length',
    schedule.budgetUsd !== null ? `at most ${formatMoney(schedule.budgetUsd)} per window` : 'run budget only',
  ].join(', ');
  return `run ${schedule.runId}: "${schedule.cron}" (${schedule.tz}), ${limits}; next start ${formatTimestamp(schedule.next)}`;
}

/** The `schedule list` table. */
export function formatScheduleTable(schedules: readonly ScheduleInfo[]): string {
  if (schedules.length === 0)
    return 'No schedules. Add one with `nightshift schedule add RUN --cron EXPR`.\n';
  return `${formatTable(
    ['RUN', 'CRON', 'TZ', 'FOR', 'BUDGET', 'NEXT START'],
    schedules.map((schedule) => [
      schedule.runId,
      schedule.cron,
      schedule.tz,
      formatWindow(schedule.forMs),
      schedule.budgetUsd === null ? '-' : formatMoney(schedule.budgetUsd),
      formatTimestamp(schedule.next),
    ]),
  )}\n`;
}

/**
 * Registers `nightshift schedule add RUN --cron EXPR [--tz ZONE] [--for DURATION] [--budget-usd N] [--json]`,
 * `schedule list [--json]` and `schedule remove RUN`.
 */
export function registerScheduleCommand(program: Command, deps: ScheduleCommandDeps): Command {
  const out = () => terminalSink(deps.stdout ?? process.stdout);
  const now = () => deps.now?.() ?? new Date();
  const schedule = program.command('schedule').description('manage nightly schedules (add | list | remove)');

  schedule
    .command('add <run>')
    .description('start or resume RUN on a cron pattern, each window with a length and a budget')
    .requiredOption('--cron <expr>', 'cron pattern, e.g. "0 1 * * *" (01:00 daily) or 6 fields with seconds')
    .option('--tz <zone>', 'IANA time zone of the pattern (default: this machine’s)')
    .option('--for <duration>', 'window length: pause at the first safe point after it, e.g. 6h')
    .option('--budget-usd <n>', 'spending allowed per window (USD)')
    .option('--json', 'print the schedule as JSON')
    .option('--config <file>', CONFIG_OPTION)
    .action(async (runId: string, options: ScheduleAddOptions & { json?: boolean; config?: string }) => {
      const input = parseScheduleAdd(runId, options, now());
      const added = await deps.withOrchestrator(
        (orchestrator) => addSchedule(orchestrator, input),
        options.config,
      );
      out().write(options.json ? `${JSON.stringify(added)}\n` : `Scheduled ${describeSchedule(added)}\n`);
    });

  schedule
    .command('list')
    .description('list schedules with their next start')
    .option('--json', 'print the schedules as JSON')
    .option('--config <file>', CONFIG_OPTION)
    .action(async (options: { json?: boolean; config?: string }) => {
      const schedules = await deps.withOrchestrator(
        (orchestrator) => listSchedules(orchestrator),
        options.config,
      );
      out().write(options.json ? `${JSON.stringify(schedules)}\n` : formatScheduleTable(schedules));
    });

  schedule
    .command('remove <run>')
    .description('remove the schedule of RUN (a window in progress runs on to its deadline)')
    .option('--config <file>', CONFIG_OPTION)
    .action(async (runId: string, options: { config?: string }) => {
      assertRunId(runId);
      const removed = await deps.withOrchestrator(
        (orchestrator) => removeSchedule(orchestrator, runId),
        options.config,
      );
      if (!removed) {
        throw new InputError('SCHEDULE_NOT_FOUND', `Run ${runId} has no schedule.`, {
          hint: 'See the schedules with `nightshift schedule list`.',
        });
      }
      out().write(`Removed the schedule of run ${runId}.\n`);
    });
  return schedule;
}
