import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../core/errors.js';
import { buildRunConfig } from '../orchestrator/config.js';
import { preflightRun } from '../orchestrator/preflight.js';
import { newRunId, type RunRecord } from '../orchestrator/run-state.js';
import { assertSpec, startRun } from '../orchestrator/start-run.js';
import { providerFactory } from '../workers/provider-factory.js';
import { toRunStatusJson } from './admin.js';
import { type CliDeps, openCliContext, orchestratorOptions, resolveDeps } from './context.js';
import { followRun } from './follow.js';
import { positiveInt, startCliWorker, untilSignal } from './worker.js';

/** Options of `nightshift run`. */
interface RunOptions {
  workspace?: string;
  repo?: string;
  branch?: string;
  model?: string;
  modelInitializer?: string;
  modelGenerator?: string;
  modelEvaluator?: string;
  budgetUsd?: number | null;
  maxSessions?: number;
  for?: string;
  detach?: boolean;
  /** `--no-preflight-request` sets this false. */
  preflightRequest?: boolean;
  json?: boolean;
  config?: string;
}

/** `--budget-usd N`, or `none` for no cost cap (null). */
function budgetUsd(value: string): number | null {
  if (value.trim().toLowerCase() === 'none') return null;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    throw new InputError(
      'OPTION_INVALID',
      `--budget-usd must be a positive number or "none", not "${value}".`,
      { hint: 'e.g. --budget-usd 20, or --budget-usd none to run without a cost cap' },
    );
  }
  return parsed;
}

/** Exit code of a finished `run`: 0 done (or paused, resumable), 1 failed or cancelled. */
export function exitCodeOf(run: RunRecord): number {
  return run.status === 'failed' || run.status === 'cancelled' ? 1 : 0;
}

/** `nightshift run <spec> …`: registers a run; without --detach also works it in-process and shows progress. */
export function registerRunCommand(program: Command, deps: CliDeps = {}): void {
  program
    .command('run')
    .description('start a build from a spec and follow it (or --detach)')
    .argument('<spec>', 'the written spec (markdown)')
    .option(
      '--workspace <dir>',
      'local workspace directory (created, or resumed when it holds a feature list)',
    )
    .option('--repo <url>', 'git remote (bare path or URL) shared by workers on many machines')
    .option('--branch <name>', 'run branch in --repo', 'main')
    .option('--model <id>', 'model for every role, e.g. anthropic:claude-sonnet-4-5')
    .option('--model-initializer <id>', 'model of the initializer')
    .option('--model-generator <id>', 'model of the generators')
    .option('--model-evaluator <id>', 'model of the evaluator')
    .option(
      '--budget-usd <n>',
      'stop (pause) when the run has cost this much; "none" for no cost cap',
      budgetUsd,
    )
    .option('--max-sessions <n>', 'stop (pause) after this many sessions', positiveInt('--max-sessions'))
    .option('--for <duration>', 'pause at this deadline from now, e.g. 6h')
    .option('--detach', 'register the run and print its id; workers do the rest')
    .option(
      '--no-preflight-request',
      'skip the tiny test request each model gets before the run is created (keys and prices are still checked)',
    )
    .option('--json', 'print one JSON document (the run status) and nothing else on stdout')
    .option('--config <file>', 'config file (default ./nightshift.config.json)')
    .action(async (spec: string, options: RunOptions) => {
      const resolved = resolveDeps(deps);
      if (options.workspace && options.repo) {
        throw new InputError('OPTIONS_CONFLICT', '--workspace and --repo exclude each other.', {
          hint: 'Use --workspace for a local directory, or --repo for a git remote shared by many workers.',
        });
      }
      const context = await openCliContext(orchestratorOptions(resolved, options.config));
      try {
        const config = buildRunConfig(
          context.config.run,
          {
            model: options.model,
            modelInitializer: options.modelInitializer,
            modelGenerator: options.modelGenerator,
            modelEvaluator: options.modelEvaluator,
            budgetUsd: options.budgetUsd,
            maxSessions: options.maxSessions,
            forDuration: options.for,
          },
          resolved.now(),
        );
        const specPath = path.resolve(resolved.cwd(), spec);
        // Nothing is written before the spec and every model have been checked: a refusal leaves no run
        // and an untouched workspace behind.
        await assertSpec(specPath);
        const preflight = await preflightRun(config, {
          createProvider: providerFactory(context.config, resolved.env),
          request: options.preflightRequest !== false && context.config.preflight.request,
        });
        for (const warning of preflight.warnings) resolved.stderr.write(`note: ${warning}\n`);
        const id = newRunId(resolved.now());
        const workspace = options.repo
          ? { kind: 'remote' as const, url: options.repo, branch: options.branch ?? 'main' }
          : {
              kind: 'local' as const,
              dir: path.resolve(
                resolved.cwd(),
                options.workspace ?? path.join(context.dataDir, 'workspaces', id),
              ),
            };
        const run = await startRun(context.orchestrator, {
          id,
          specPath,
          workspace,
          config,
          dataDir: context.dataDir,
        });
        if (options.detach) {
          resolved.stdout.write(options.json ? `${JSON.stringify(toRunStatusJson(run))}\n` : `${run.id}\n`);
          return;
        }
        resolved.stderr.write(
          `run ${run.id}: workspace ${workspace.kind === 'local' ? workspace.dir : workspace.url}\n`,
        );
        const worker = await startCliWorker(context, resolved.env);
        const stop = new AbortController();
        void untilSignal().then(() => stop.abort());
        const finished = await followRun(context.orchestrator, run.id, {
          stream: process.stderr,
          signal: stop.signal,
        });
        await worker.close();
        if (options.json) resolved.stdout.write(`${JSON.stringify(toRunStatusJson(finished))}\n`);
        resolved.setExitCode(exitCodeOf(finished));
      } finally {
        await context.close();
      }
    });
}
