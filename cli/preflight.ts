import type { RunConfig } from '../orchestrator/config.js';
import { preflightRun } from '../orchestrator/preflight.js';
import { providerFactory } from '../workers/provider-factory.js';
import type { CliContext } from './context.js';
import type { TextSink } from './output.js';

/** Options of {@link preflightForCli}. */
export interface CliPreflightOptions {
  /** False when the user asked to skip the request (`--no-preflight-request`); the config may too. */
  request?: boolean;
  /** Where the notes go (a model without a price, a busy provider). */
  stderr: TextSink;
  /** Models used besides the roles (the planner of `run --prompt`). */
  extraModels?: Record<string, string>;
}

/**
 * Checks a run's models before anything is written, for every command that creates runs (`run`,
 * `plan --yes`, the dashboard's new-run form, `demo`): throws the preflight's InputError (exit 2) when a model
 * cannot work, prints its notes otherwise.
 */
export async function preflightForCli(
  context: Pick<CliContext, 'config'>,
  env: NodeJS.ProcessEnv,
  config: RunConfig,
  options: CliPreflightOptions,
): Promise<void> {
  const report = await preflightRun(config, {
    createProvider: providerFactory(context.config, env),
    request: options.request !== false && context.config.preflight.request,
    ...(options.extraModels ? { extraModels: options.extraModels } : {}),
  });
  for (const warning of report.warnings) options.stderr.write(`note: ${warning}\n`);
}
