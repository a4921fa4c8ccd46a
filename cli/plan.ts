import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { InputError } from '../core/errors.js';
import { buildRunConfig, plannerModelId } from '../orchestrator/config.js';
import { loadConfig } from '../orchestrator/config-load.js';
import { startPlannedRun } from '../orchestrator/planning.js';
import { newRunId, type RunRecord } from '../orchestrator/run/index.js';
import { checkPlannerPrompt, type PlannerResult } from '../roles/planner.js';
import {
  type CliDeps,
  openCliContext,
  orchestratorOptions,
  type ResolvedDeps,
  resolveDeps,
} from './context.js';
import { detachOrFollow } from './foreground.js';
import { modelOption } from './options.js';
import { planFromCli } from './plan-session.js';
import { confirm, type LineReader, openLineReader, terminalAsk } from './plan-terminal.js';
import { preflightForCli } from './preflight.js';
import { runWorkspace } from './run.js';
import { toRunStatusJson } from './status.js';

/** Options of `nightshift plan`. */
interface PlanOptions {
  out: string;
  force?: boolean;
  model?: string;
  yes?: boolean;
  /** False with `--no-interactive`. */
  interactive: boolean;
  workspace?: string;
  detach?: boolean;
  json?: boolean;
  config?: string;
}

/** CliDeps plus where answers come from (read lazily: script mode never touches stdin). */
export interface PlanDeps extends CliDeps {
  stdin?: () => Readable;
}

/** Refuses to overwrite an existing spec unless asked to, before any token is spent. */
function checkOut(out: string, force: boolean | undefined): void {
  if (existsSync(out) && !force) {
    throw new InputError('SPEC_OUT_EXISTS', `${out} already exists; the planner would overwrite it.`, {
      hint: 'Choose another file with --out, or pass --force to overwrite it.',
    });
  }
}

/** The JSON document of `plan --json`. */
function planJson(plan: PlannerResult, out: string, run: RunRecord | undefined) {
  return {
    planId: plan.planId,
    model: plan.model,
    spec: out,
    bytes: Buffer.byteLength(plan.spec),
    questions: plan.exchanges,
    costUsd: plan.costUsd,
    transcript: plan.transcript,
    run: run ? toRunStatusJson(run) : null,
  };
}

/**
 * `nightshift plan "<idea>"`: the planner asks a few questions (interactive, the default), writes the spec to
 * `--out`, shows it and offers to start a run with it (`--yes`: without asking). `--no-interactive` never
 * reads stdin: no questions, and a run only with `--yes`.
 */
export function registerPlanCommand(program: Command, deps: PlanDeps = {}): void {
  program
    .command('plan')
    .description('write a spec from a short idea with the planner, then offer to start a run on it')
    .argument('<idea>', 'the application, in a few sentences')
    .option('--out <file>', 'where to save the spec', 'app_spec.md')
    .option('--force', 'overwrite --out when it exists')
    .option(
      '--model <id>',
      "the planner's model (default: models.planner, else the generator's model)",
      modelOption('--model'),
    )
    .option('--yes', 'start a run with the spec without asking')
    .option('--no-interactive', 'never ask and never read stdin (scripts); a run starts only with --yes')
    .option('--workspace <dir>', 'workspace of the run, when one starts')
    .option('--detach', 'register the run and exit; workers do the rest')
    .option('--json', 'print one JSON document (the plan, and the run when one started) on stdout')
    .option('--config <file>', 'config file (default ./nightshift.config.json)')
    .action(async (idea: string, options: PlanOptions) => {
      const resolved = resolveDeps(deps);
      const prompt = checkPlannerPrompt(idea);
      const out = path.resolve(resolved.cwd(), options.out);
      checkOut(out, options.force);
      const { config } = loadConfig({ cwd: resolved.cwd(), env: resolved.env, file: options.config });
      const modelId = plannerModelId(config.run.models, options.model);
      const reader = options.interactive
        ? openLineReader((deps.stdin ?? (() => process.stdin))())
        : undefined;
      try {
        const plan = await planFromCli({
          prompt,
          config,
          modelId,
          env: resolved.env,
          stderr: resolved.stderr,
          ...(reader ? { ask: terminalAsk(reader, resolved.stderr) } : {}),
        });
        await writeFile(out, plan.spec);
        if (!options.json) resolved.stdout.write(plan.spec);
        resolved.stderr.write(`\nspec saved to ${out}\n`);
        const start = await shouldStart(options, reader, resolved, out);
        reader?.close();
        const run = start ? await startFromPlan(resolved, options, plan, out, modelId) : undefined;
        if (!start) resolved.stderr.write(`start it when you like: nightshift run ${options.out}\n`);
        if (options.json) resolved.stdout.write(`${JSON.stringify(planJson(plan, out, run))}\n`);
        else if (run && options.detach) resolved.stdout.write(`${run.id}\n`);
      } finally {
        reader?.close();
      }
    });
}

async function shouldStart(
  options: PlanOptions,
  reader: LineReader | undefined,
  resolved: ResolvedDeps,
  out: string,
): Promise<boolean> {
  if (options.yes) return true;
  if (!reader) return false;
  const name = path.relative(resolved.cwd(), out) || out;
  return confirm(reader, resolved.stderr, `Start a run with ${name} now? (edit the file first if you like)`);
}

/** Starts a run on the spec as it is in `out` now (a person may have edited it), with the plan as its origin. */
async function startFromPlan(
  resolved: ResolvedDeps,
  options: PlanOptions,
  plan: PlannerResult,
  out: string,
  modelId: string,
): Promise<RunRecord> {
  const spec = await readFile(out, 'utf8');
  const context = await openCliContext(orchestratorOptions(resolved, options.config));
  try {
    const config = buildRunConfig(context.config.run, { modelPlanner: modelId }, resolved.now());
    await preflightForCli(context, resolved.env, config, { stderr: resolved.stderr });
    const id = newRunId(resolved.now());
    const run = await startPlannedRun(context.orchestrator, {
      plan,
      spec,
      workspace: await runWorkspace(resolved, context, id, options),
      config,
      dataDir: context.dataDir,
      id,
    });
    return await detachOrFollow(context, resolved, run, options);
  } finally {
    await context.close();
  }
}
