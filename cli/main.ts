import { Command, CommanderError } from 'commander';
import { NightshiftError } from '../core/errors.js';
import { createStatusListener } from '../orchestrator/notifications.js';
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
import { registerPlanCommand } from './plan.js';
import { registerRunCommand } from './run.js';
import { registerScheduleCommand } from './schedule.js';
import { registerWorkerCommand } from './worker.js';

/** Webhooks and nightly summaries for every status change a command makes. */
const notificationsFor: StatusListenerFactory = ({ config, store, redis }) =>
  createStatusListener({ orchestrator: { redis, store, prefix: config.keyPrefix, now: () => new Date() } });

/** Builds the commander program with every command of DESIGN.md. */
export function buildProgram(options: CliDeps = {}): Command {
  const deps: CliDeps = { onStatusChange: notificationsFor, ...options };
  const program = new Command('nightshift')
    .description('Builds an application from a written spec over many hours, unattended.')
    .exitOverride()
    .showHelpAfterError();
  registerRunCommand(program, deps);
  registerPlanCommand(program, deps);
  registerWorkerCommand(program, deps);
  registerDashboardCommand(program, openWithOrchestrator(deps));
  registerAdminCommands(program, deps);
  registerChecksCommand(program, deps);
  registerScheduleCommand(program, {
    withOrchestrator: (fn) =>
      withOrchestrator(orchestratorOptions(resolveDeps(deps)), (context) => fn(context.orchestrator)),
  });
  registerDemoCommand(program, deps);
  registerDoctorCommand(program, deps);
  return program;
}

/** CLI entry: parses argv, runs the command, returns the process exit code (0 ok, 1 run failed, 2 bad input). */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof NightshiftError) {
      process.stderr.write(`nightshift: ${error.describe()}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
