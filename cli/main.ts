import { Command, CommanderError } from 'commander';
import { NightshiftError } from '../core/errors.js';
import { registerPlaceholder } from './not-built.js';

/** Every command of DESIGN.md with its one-line description, in help order. */
const COMMANDS: ReadonlyArray<[name: string, description: string]> = [
  ['run', 'start a build from a spec and follow it (or --detach)'],
  ['worker', 'run a worker process that executes sessions from the queue'],
  ['dashboard', 'serve the web dashboard and JSON API'],
  ['status', 'show one run (or the newest)'],
  ['runs', 'list runs'],
  ['pause', 'pause a run at the next safe point'],
  ['resume', 'resume a paused run'],
  ['cancel', 'cancel a run'],
  ['schedule', 'manage nightly schedules (add | list | remove)'],
  ['demo', 'build the example app offline, end to end, with the scripted model'],
  ['doctor', 'check Redis, Chromium, git, bubblewrap and API keys'],
];

/** Builds the commander program; commands register themselves here as they are built. */
export function buildProgram(): Command {
  const program = new Command('nightshift')
    .description('Builds an application from a written spec over many hours, unattended.')
    .exitOverride()
    .showHelpAfterError();
  for (const [name, description] of COMMANDS) registerPlaceholder(program, name, description);
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
