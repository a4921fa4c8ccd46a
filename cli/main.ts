import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { ZodError } from 'zod';
import { NightshiftError } from '../core/errors.js';
import { logToFile } from '../core/log.js';
import { dataDir } from '../core/paths.js';
import { spawnHelperSetting } from '../core/spawn-helper.js';
import { formatZodIssues } from '../core/zod-issues.js';
import { withHousekeeping } from '../orchestrator/housekeeping.js';
import { createStatusListener } from '../orchestrator/notifications.js';
import { registerAddCommand } from './add.js';
import { registerAdminCommands } from './admin.js';
import { registerChecksCommand } from './checks.js';
import {
  type CliDeps,
  orchestratorOptions,
  resolveDeps,
  type StatusListenerFactory,
  withOrchestrator,
} from './context.js';
import { registerDashboardCommand } from './dashboard.js';
import { openWithOrchestrator } from './dashboard-wiring.js';
import { registerDemoCommand } from './demo.js';
import { registerDoctorCommand } from './doctor.js';
import { registerFollowCommand } from './follow-command.js';
import { registerInitCommand } from './init.js';
import { registerLogsCommand } from './logs.js';
import { registerPlanCommand } from './plan.js';
import { registerPruneCommand } from './prune.js';
import { registerQuestionsCommands } from './questions.js';
import { registerRunCommand } from './run.js';
import { registerScheduleCommand } from './schedule.js';
import { registerSteerCommands } from './steer.js';
import { terminalSink } from './terminal-text.js';
import { registerWorkerCommand } from './worker.js';

/** Webhooks and nightly summaries for every status change a command makes; a finished run's lanes tidied. */
const notificationsFor: StatusListenerFactory = ({ config, store, redis, queues }) => {
  const notifier = createStatusListener({
    orchestrator: { redis, store, prefix: config.keyPrefix, now: () => new Date() },
  });
  if (!config.housekeeping.removeOnFinish) return notifier;
  const orchestrator = { redis, store, queues, prefix: config.keyPrefix };
  return withHousekeeping(notifier, { orchestrator, dataDir: config.dataDir });
};

/** Builds the commander program with every command of DESIGN.md. */
export function buildProgram(options: CliDeps = {}): Command {
  const deps: CliDeps = { onStatusChange: notificationsFor, ...options };
  const program = new Command('nightshift')
    .description('Builds an application from a written spec over many hours, unattended.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--verbose', 'log lines (JSON) on stderr instead of <data dir>/logs/<command>.log')
    .exitOverride()
    // Help and usage errors quote what was typed: through the same terminal sinks as every command's output.
    .configureOutput({
      writeOut: (text) => terminalSink(process.stdout).write(text),
      writeErr: (text) => terminalSink(process.stderr).write(text),
    })
    // One line, not the whole help: the error and commander's "Did you mean" stay in view.
    .showHelpAfterError('(add --help for the commands and options)');
  registerRunCommand(program, deps);
  registerPlanCommand(program, deps);
  registerWorkerCommand(program, deps);
  registerDashboardCommand(program, openWithOrchestrator(deps));
  registerAdminCommands(program, deps);
  registerSteerCommands(program, deps);
  registerAddCommand(program, deps);
  registerFollowCommand(program, deps);
  registerLogsCommand(program, deps);
  registerChecksCommand(program, deps);
  registerScheduleCommand(program, {
    withOrchestrator: (fn, configFile) =>
      withOrchestrator(orchestratorOptions(resolveDeps(deps), configFile), (context) =>
        fn(context.orchestrator),
      ),
  });
  registerDemoCommand(program, deps);
  registerDoctorCommand(program, deps);
  registerInitCommand(program, deps);
  registerPruneCommand(program, deps);
  registerQuestionsCommands(program, deps);
  return program;
}

/** The version in package.json. */
export function packageVersion(): string {
  const file = new URL('../package.json', import.meta.url);
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Commands that are services: their log is their record, on stderr (docker, systemd, a terminal). */
const SERVICE_COMMANDS = new Set(['worker', 'dashboard']);

/**
 * Where this process logs: stderr for services, with `--verbose` or when NIGHTSHIFT_LOG_LEVEL is set; otherwise
 * `<data dir>/logs/<command>.log`, so the human output of run, demo, resume or schedule is not mixed with JSON
 * lines. Returns argv without `--verbose` (accepted anywhere before `--`).
 */
export function routeLogs(argv: string[], env: NodeJS.ProcessEnv): string[] {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  const verbose = options.includes('--verbose');
  const rest = verbose
    ? [...options.filter((arg) => arg !== '--verbose'), ...(end === -1 ? [] : argv.slice(end))]
    : argv;
  const command = rest.slice(2).find((arg) => !arg.startsWith('-'));
  if (!command || verbose || SERVICE_COMMANDS.has(command) || env.NIGHTSHIFT_LOG_LEVEL) return rest;
  logToFile(path.join(dataDir(env), 'logs', `${command}.log`));
  return rest;
}

/** CLI entry: parses argv, runs the command, returns the process exit code (0 ok, 1 run failed, 2 bad input). */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    // Checked before any command runs: a bad value must not surface first as a failed git command mid-run.
    spawnHelperSetting(process.env);
    await program.parseAsync(routeLogs(argv, process.env));
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    // A message may quote what a model or the workspace wrote: shown as text like every other line.
    const stderr = terminalSink(process.stderr);
    if (error instanceof NightshiftError) {
      stderr.write(`nightshift: ${error.describe()}\n`);
      return error.exitCode;
    }
    // Data that failed its schema where nothing caught it: said for a person, not as a stack trace.
    if (error instanceof ZodError) {
      stderr.write(`nightshift: invalid data:\n${formatZodIssues(error.issues)}\n`);
      return 1;
    }
    throw error;
  }
}
