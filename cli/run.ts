import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../core/errors.js';
import { defaultWorkspaceDir } from '../core/paths.js';
import { saveRemoteCredential } from '../handoff/remote-credentials.js';
import { splitRemoteUrl } from '../handoff/remote-url.js';
import { checkRunName } from '../handoff/spec-title.js';
import { buildRunConfig, DEFAULT_MODEL, plannerModelId, RunConfig } from '../orchestrator/config.js';
import { MAX_LANES } from '../orchestrator/lanes/lanes.js';
import { startPlannedRun } from '../orchestrator/planning.js';
import { newRunId, type RunRecord } from '../orchestrator/run/index.js';
import {
  assertSpec,
  assertWorkspaceDir,
  type RunWorkspaceInput,
  startRun,
} from '../orchestrator/start-run.js';
import { checkPlannerPrompt } from '../roles/planner.js';
import {
  type CliDeps,
  type OpenCliContext,
  openCliContext,
  orchestratorOptions,
  type ResolvedDeps,
  resolveDeps,
} from './context.js';
import { detachOrFollow } from './foreground.js';
import { budgetUsd, collect, durationMs, intInRange, modelOption, positiveInt } from './options.js';
import { planFromCli } from './plan-session.js';
import { preflightForCli } from './preflight.js';
import { hideArguments } from './processes.js';
import { existingRunToGoOn } from './run-on-workspace.js';
import { statusJsonOf } from './status.js';
import { stampedWhenLogged } from './terminal-text.js';

/** Options of `nightshift run`. */
interface RunOptions {
  workspace?: string;
  repo?: string;
  branch?: string;
  model?: string;
  modelInitializer?: string;
  modelGenerator?: string;
  modelEvaluator?: string;
  modelPlanner?: string;
  /** Plan the spec from this idea first (unattended), then run it. */
  prompt?: string;
  budgetUsd?: number | null;
  maxSessions?: number;
  for?: string;
  /** `--app-ready-timeout`, in milliseconds. */
  appReadyTimeout?: number;
  /** `--lanes N`. */
  lanes?: number;
  /** `--name NAME`: what people call the run. */
  name?: string;
  network?: string;
  allowHost?: string[];
  detach?: boolean;
  /** `--new`: a new run on a workspace whose last run has ended. */
  new?: boolean;
  webhook?: string[];
  slackWebhook?: string[];
  /** `--no-preflight-request` sets this false. */
  preflightRequest?: boolean;
  json?: boolean;
  config?: string;
}

/** The run config's defaults, shown in `run --help`. */
const DEFAULTS = RunConfig.parse({});

/** `nightshift run <spec> …`: registers a run; without --detach also works it in-process and shows progress. */
export function registerRunCommand(program: Command, deps: CliDeps = {}): void {
  const command = program
    .command('run')
    .description('start a build from a spec (or an idea: --prompt) and follow it (or --detach)')
    .argument('[spec]', 'the written spec (markdown); omit it with --prompt');
  addSourceOptions(command);
  addModelOptions(command);
  addLimitOptions(command);
  addSandboxAndNotifyOptions(command);
  addModeOptions(command);
  command.action((spec: string | undefined, options: RunOptions) => runAction(deps, spec, options));
}

/** Where the run's spec and code live: `--prompt`, `--workspace`, `--repo`, `--name`, `--branch`. */
function addSourceOptions(command: Command): void {
  command
    .option('--prompt <text>', 'plan a spec from this idea first (unattended), then run it')
    .option(
      '--workspace <dir>',
      'local workspace directory (created, or resumed when it holds a feature list)',
    )
    .option('--repo <url>', 'git remote (bare path or URL) shared by workers on many machines')
    .option(
      '--name <name>',
      "what to call the run in runs, status, the dashboard and webhooks (default: the spec's # title, else its file name)",
      (value: string) => checkRunName(value),
    )
    .option('--branch <name>', 'run branch in --repo', 'main');
}

/** `--model` and the per-role model options. */
function addModelOptions(command: Command): void {
  command
    .option(
      '--model <id>',
      `model for every role (default: ${DEFAULT_MODEL}, or run.models in the config)`,
      modelOption('--model'),
    )
    .option('--model-initializer <id>', 'model of the initializer', modelOption('--model-initializer'))
    .option('--model-generator <id>', 'model of the generators', modelOption('--model-generator'))
    .option('--model-evaluator <id>', 'model of the evaluator', modelOption('--model-evaluator'))
    .option('--model-planner <id>', 'model of the planner (--prompt)', modelOption('--model-planner'));
}

/** Budgets, deadline, app-ready timeout and lanes. */
function addLimitOptions(command: Command): void {
  command
    .option(
      '--budget-usd <n>',
      `stop (pause) when the run has cost this much; "none" for no cost cap (default: $${DEFAULTS.budgets.maxCostUsd}, or run.budgets.maxCostUsd in the config)`,
      budgetUsd,
    )
    .option(
      '--max-sessions <n>',
      `stop (pause) after this many sessions (default: ${DEFAULTS.budgets.maxSessions}, or run.budgets.maxSessions)`,
      positiveInt('--max-sessions'),
    )
    .option('--for <duration>', 'pause at this deadline from now, e.g. 6h (default: no deadline)')
    .option(
      '--app-ready-timeout <duration>',
      `how long the app may take to answer after init.sh starts, e.g. 5m (default: ${DEFAULTS.app.readyTimeoutSeconds}s, or run.app.readyTimeoutSeconds)`,
      durationMs('--app-ready-timeout', '5m'),
    )
    .option(
      '--lanes <n>',
      `features worked on at once, each on its own branch, merged one train at a time; a passed one waits to merge without holding a lane (1–${MAX_LANES}; default: ${DEFAULTS.lanes}, or run.lanes)`,
      intInRange('--lanes', 1, MAX_LANES, 2),
    );
}

/** The sandbox's network and the run's webhooks. */
function addSandboxAndNotifyOptions(command: Command): void {
  command
    .option(
      '--network <mode>',
      `network of the sandbox: none, registries or open (default: ${DEFAULTS.sandbox.network}, or run.sandbox.network)`,
    )
    .option(
      '--allow-host <host>',
      'also reachable from the sandbox (repeatable): host, host:port, *.domain',
      collect,
      [],
    )
    .option('--webhook <url>', 'also notify this URL (JSON) about this run (repeatable)', collect, [])
    .option(
      '--slack-webhook <url>',
      'also notify this Slack-compatible URL about this run (repeatable)',
      collect,
      [],
    );
}

/** How the command behaves: `--detach`, `--new`, `--no-preflight-request`, `--json`, `--config`. */
function addModeOptions(command: Command): void {
  command
    .option('--detach', 'register the run and print its id; workers do the rest')
    .option(
      '--new',
      'a new run on a workspace whose last run has ended (done, incomplete, cancelled): it re-checks what passes, then builds what fails',
    )
    .option(
      '--no-preflight-request',
      'skip the tiny test request each model gets before the run is created (keys and prices are still checked)',
    )
    .option('--json', 'print one JSON document (the run status) and nothing else on stdout')
    .option('--config <file>', 'config file (default ./nightshift.config.json)');
}

/** The action of `nightshift run`: checks the input, then goes on with an ended run or starts a new one. */
async function runAction(deps: CliDeps, spec: string | undefined, options: RunOptions): Promise<void> {
  const resolved = stampedWhenLogged(resolveDeps(deps));
  // A credential in --repo must not stay readable in this long-lived process's argv (`ps`, /proc/<pid>/cmdline).
  if (options.repo && splitRemoteUrl(options.repo).credential) hideArguments('run');
  checkSpecOrPrompt(spec, options.prompt);
  if (options.workspace && options.repo) {
    throw new InputError('OPTIONS_CONFLICT', '--workspace and --repo exclude each other.', {
      hint: 'Use --workspace for a local directory, or --repo for a git remote shared by many workers.',
    });
  }
  const context = await openCliContext(orchestratorOptions(resolved, options.config));
  try {
    const config = runConfigOf(context, options, resolved.now());
    // Nothing is written (and no planner runs) before the spec and every model have been checked: a
    // refusal leaves no run and an untouched workspace behind.
    const specPath = spec === undefined ? undefined : path.resolve(resolved.cwd(), spec);
    if (specPath) await assertSpec(specPath);
    const id = newRunId(resolved.now());
    const workspace = await runWorkspace(resolved, context, id, options);
    if (workspace.kind === 'local') await assertWorkspaceDir(workspace.dir);
    const resumed = await existingRunToGoOn(context, resolved, workspace, options);
    if (resumed) {
      await report(context, resolved, await detachOrFollow(context, resolved, resumed, options), options);
      return;
    }
    const planner = options.prompt ? plannerModelId(config.models) : undefined;
    await preflightForCli(context, resolved.env, config, {
      request: options.preflightRequest,
      stderr: resolved.stderr,
      ...(planner ? { extraModels: { planner } } : {}),
    });
    const run = await startNewRun(context, resolved, { id, specPath, workspace, config }, options);
    await report(context, resolved, await detachOrFollow(context, resolved, run, options), options);
  } finally {
    await context.close();
  }
}

/** The run's config: the config file's `run` section with the command-line options over it. */
function runConfigOf(context: OpenCliContext, options: RunOptions, now: Date): RunConfig {
  return buildRunConfig(
    context.config.run,
    {
      model: options.model,
      modelInitializer: options.modelInitializer,
      modelGenerator: options.modelGenerator,
      modelEvaluator: options.modelEvaluator,
      modelPlanner: options.modelPlanner,
      budgetUsd: options.budgetUsd,
      maxSessions: options.maxSessions,
      forDuration: options.for,
      appReadyTimeoutMs: options.appReadyTimeout,
      ...(options.lanes === undefined ? {} : { lanes: options.lanes }),
      network: options.network,
      allowHosts: options.allowHost,
      webhooks: [
        ...(options.webhook ?? []).map((url) => ({ url, format: 'json' as const })),
        ...(options.slackWebhook ?? []).map((url) => ({ url, format: 'slack' as const })),
      ],
    },
    now,
  );
}

/** A new run: planned from `--prompt` first, or started from the spec file. */
async function startNewRun(
  context: OpenCliContext,
  resolved: ResolvedDeps,
  start: { id: string; specPath: string | undefined; workspace: RunWorkspaceInput; config: RunConfig },
  options: RunOptions,
): Promise<RunRecord> {
  const { id, specPath, workspace, config } = start;
  if (options.prompt) {
    return startPlannedRun(context.orchestrator, {
      plan: await planFromCli({
        prompt: options.prompt,
        config: context.config,
        modelId: plannerModelId(config.models),
        env: resolved.env,
        stderr: resolved.stderr,
      }),
      workspace,
      config,
      dataDir: context.dataDir,
      id,
      ...(options.name ? { name: options.name } : {}),
    });
  }
  return startRun(context.orchestrator, {
    id,
    specPath: specPath as string,
    workspace,
    config,
    dataDir: context.dataDir,
    ...(options.name ? { name: options.name } : {}),
    ...(options.new ? { recheckPassing: true } : {}),
  });
}

/** What `run` prints on stdout at the end: the status document (`--json`) or the run id (`--detach`). */
async function report(
  context: OpenCliContext,
  resolved: ResolvedDeps,
  run: RunRecord,
  options: { json?: boolean; detach?: boolean },
): Promise<void> {
  if (options.json) {
    const json = await statusJsonOf(context.orchestrator, run.id, resolved.now());
    resolved.stdout.write(`${JSON.stringify(json)}\n`);
  } else if (options.detach) resolved.stdout.write(`${run.id}\n`);
}

/** Exactly one of a spec file and `--prompt` (checked before anything starts). */
function checkSpecOrPrompt(spec: string | undefined, prompt: string | undefined): void {
  if (spec === undefined && prompt === undefined) {
    throw new InputError('SPEC_MISSING', 'No spec given.', {
      hint: 'Pass a spec file (nightshift run app_spec.md) or an idea (nightshift run --prompt "…").',
    });
  }
  if (spec !== undefined && prompt !== undefined) {
    throw new InputError('OPTIONS_CONFLICT', 'A spec file and --prompt exclude each other.', {
      hint: 'Run the spec you have, or let the planner write one from --prompt.',
    });
  }
  if (prompt !== undefined) checkPlannerPrompt(prompt);
}

/**
 * The workspace of a new run: `--repo`, `--workspace`, or a fresh directory in the data dir. A `--repo` URL with a
 * credential is split here, once: the credential goes to the data dir's credential file (0600; workers sharing the
 * data dir find it, others take it from NIGHTSHIFT_GIT_CREDENTIALS), the run gets the masked URL.
 */
export async function runWorkspace(
  resolved: ResolvedDeps,
  context: OpenCliContext,
  id: string,
  options: { workspace?: string; repo?: string; branch?: string },
): Promise<RunWorkspaceInput> {
  if (options.repo) {
    const remote = splitRemoteUrl(options.repo);
    if (remote.credential) await saveRemoteCredential(context.dataDir, remote.plain, remote.credential);
    return { kind: 'remote', url: remote.shown, branch: options.branch ?? 'main' };
  }
  return {
    kind: 'local',
    dir: path.resolve(resolved.cwd(), options.workspace ?? defaultWorkspaceDir(context.dataDir, id)),
  };
}
