/** `note`, `reopen`, `unblock`: a person steers one feature of a run (orchestrator/steering.ts). */
import os from 'node:os';
import type { Command } from 'commander';
import { type SteerOutcome, type SteerRequest, steerFeature } from '../orchestrator/steering.js';
import {
  type CliDeps,
  orchestratorOptions,
  type ResolvedDeps,
  resolveDeps,
  withOrchestrator,
} from './context.js';
import { statusLabel } from './status.js';

interface SteerCliOptions {
  json?: boolean;
  config?: string;
  reason?: string;
  note?: string;
}

/** Who a CLI action is recorded as: `cli:<os user>` (`$USER` first, for containers without a passwd entry). */
export function cliActor(env: NodeJS.ProcessEnv): string {
  let user = env.USER ?? env.LOGNAME;
  if (!user) {
    try {
      user = os.userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return `cli:${user}`;
}

/** One steering command: its name, arguments and what it asks for. */
interface SteerCommand {
  name: string;
  description: string;
  /** The third argument (`note`'s text), if the command takes one. */
  textArgument?: string;
  configure?: (command: Command) => Command;
  request: (text: string | undefined, options: SteerCliOptions) => SteerRequest;
  /** What the text output says after the feature's id. */
  said: (outcome: SteerOutcome) => string;
}

const COMMANDS: readonly SteerCommand[] = [
  {
    name: 'note',
    description: 'leave a note on a feature: its next sessions read it in their brief',
    textArgument: 'text',
    request: (text) => ({ action: 'note', text: text ?? '' }),
    said: () => ': noted; its next session (generator or evaluator) reads it',
  },
  {
    name: 'reopen',
    description: 'send a passing feature back to failing (its recorded check stays, as a regression to fix)',
    configure: (command) =>
      command.requiredOption('--reason <text>', 'what is wrong: its next session reads it'),
    request: (_text, options) => ({ action: 'reopen', reason: options.reason ?? '' }),
    said: () => ': reopened; a generator gets it next, with your reason and its recorded check',
  },
  {
    name: 'unblock',
    description: 'give a blocked feature new attempts',
    configure: (command) => command.option('--note <text>', 'a note its next session reads'),
    request: (_text, options) => ({
      action: 'unblock',
      ...(options.note !== undefined && { note: options.note }),
    }),
    said: () => ': unblocked, with new attempts',
  },
];

/** Registers `note RUN FEATURE TEXT`, `reopen RUN FEATURE --reason TEXT`, `unblock RUN FEATURE [--note TEXT]`. */
export function registerSteerCommands(program: Command, deps: CliDeps = {}): void {
  const resolved = resolveDeps(deps);
  for (const spec of COMMANDS) registerOne(program, resolved, spec);
}

function registerOne(program: Command, resolved: ResolvedDeps, spec: SteerCommand): void {
  let command = program
    .command(spec.name)
    .description(spec.description)
    .argument('<run>', 'run id')
    .argument('<feature>', 'feature id, e.g. F-003');
  if (spec.textArgument) command = command.argument(`<${spec.textArgument}>`, 'what the session should know');
  command = (spec.configure?.(command) ?? command)
    .option('--json', 'print the feature after the change as one JSON document')
    .option('--config <file>', 'config file');
  command.action((runId: string, featureId: string, ...rest: unknown[]) => {
    const text = spec.textArgument ? (rest[0] as string) : undefined;
    const options = (spec.textArgument ? rest[1] : rest[0]) as SteerCliOptions;
    return withOrchestrator(
      orchestratorOptions(resolved, options.config),
      async ({ orchestrator, dataDir }) => {
        const outcome = await steerFeature(orchestrator, {
          runId,
          featureId,
          request: spec.request(text, options),
          by: cliActor(resolved.env),
          dataDir,
        });
        if (options.json) return void resolved.stdout.write(`${JSON.stringify(outcome.feature, null, 2)}\n`);
        resolved.stdout.write(
          `${featureId} of ${runId}${spec.said(outcome)} (run ${statusLabel(outcome.run)}).\n`,
        );
      },
    );
  });
}
