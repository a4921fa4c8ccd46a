/** `add RUN "description"`: a person adds a feature to a run (orchestrator/feature-add.ts); the run builds it. */
import type { Command } from 'commander';
import type { EventSink } from '../agent/events.js';
import type { NightshiftConfig } from '../orchestrator/config.js';
import { type AddOutcome, addFeature } from '../orchestrator/feature-add.js';
import { harnessSecrets } from '../orchestrator/harness-secrets.js';
import { noWorkerNote } from '../orchestrator/no-worker.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { connectedWorkers } from '../orchestrator/queues.js';
import { ACTIVE_STATUSES } from '../orchestrator/run/index.js';
import { providerFactory } from '../workers/provider-factory.js';
import { type CliDeps, orchestratorOptions, resolveDeps, withOrchestrator } from './context.js';
import { formatMoney, type TextSink } from './output.js';
import { statusLabel } from './status.js';
import { cliActor } from './steer.js';
import { oneLine } from './terminal-text.js';

interface AddCliOptions {
  json?: boolean;
  config?: string;
}

/** Who asked, what they said, and where the harness keeps its files and keys. */
export interface AddRequest {
  runId: string;
  text: string;
  by: string;
  config: NightshiftConfig;
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

/** A line on stderr when the harness refuses the writer's entry (it revises it) or the model fails. */
function writerProgress(stderr: TextSink): EventSink {
  return (event) => {
    if (event.type === 'tool.ended' && event.isError && event.name === 'submit_feature')
      stderr.write('add: the harness refused the entry; the writer is revising it\n');
    else if (event.type === 'model.error')
      stderr.write(`add: model error (${event.kind})${event.willRetry ? ', retrying' : ''}\n`);
  };
}

/** Adds the feature with the configured providers and the harness's secrets (the CLI's and the dashboard's way). */
export async function addFromConfig(
  orchestrator: Orchestrator,
  request: AddRequest,
  sink?: EventSink,
): Promise<AddOutcome> {
  const { config, env } = request;
  return addFeature(orchestrator, {
    runId: request.runId,
    text: request.text,
    by: request.by,
    dataDir: request.dataDir,
    providerFor: (modelId) => providerFactory(config, env)(modelId),
    secrets: await harnessSecrets({ env, config, home: config.dataDir }),
    ...(sink ? { sink } : {}),
  });
}

/** What `add` prints: the new feature, what it depends on, and the run's state. */
export function formatAdded(outcome: AddOutcome): string {
  const { feature, run, written } = outcome;
  const needs = feature.depends_on?.length ? ` (depends on ${feature.depends_on.join(', ')})` : '';
  const steps = feature.steps.map((step, index) => `  ${index + 1}. ${oneLine(step, 200)}`).join('\n');
  return [
    `${feature.id} added to ${run.id}: ${oneLine(feature.description, 300)}${needs}`,
    steps,
    `Written by ${written.steps} model request(s), ${formatMoney(written.costUsd)}; run ${statusLabel(run)}.`,
  ].join('\n');
}

/** Registers `add RUN DESCRIPTION`. */
export function registerAddCommand(program: Command, deps: CliDeps = {}): void {
  const resolved = resolveDeps(deps);
  program
    .command('add')
    .description(
      'add a feature to a run: a short session writes it as a feature entry, and the run builds it',
    )
    .argument('<run>', 'run id')
    .argument('<description>', 'the feature, in your words')
    .option('--json', 'print the new feature as one JSON document')
    .option('--config <file>', 'config file')
    .action((runId: string, text: string, options: AddCliOptions) =>
      withOrchestrator(
        orchestratorOptions(resolved, options.config),
        async ({ orchestrator, config, dataDir }) => {
          const request = { runId, text, by: cliActor(resolved.env), config, dataDir, env: resolved.env };
          const outcome = await addFromConfig(orchestrator, request, writerProgress(resolved.stderr));
          if (options.json)
            return void resolved.stdout.write(`${JSON.stringify(outcome.feature, null, 2)}\n`);
          // A run that builds again with nobody to work it (a finished foreground run, say) says how to go on.
          const idle =
            ACTIVE_STATUSES.includes(outcome.run.status) &&
            (await connectedWorkers(orchestrator.queues)) === 0;
          resolved.stdout.write(
            `${formatAdded(outcome)}${idle ? `\nNote: ${noWorkerNote(outcome.run)}.` : ''}\n`,
          );
        },
      ),
    );
}
