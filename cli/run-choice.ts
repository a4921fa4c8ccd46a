/**
 * The dashboard's new-run form chooses a run's model, budget, lanes and workspace; this checks a choice the way the
 * CLI checks `run`'s options and preflights its models, so key and model problems show before an idea is typed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { modelLifecycle } from '../agent/model-retirement.js';
import { closestKnownModel, KNOWN_MODELS, resolveModelSettings } from '../agent/models.js';
import { parseModelId } from '../agent/providers/index.js';
import { NightshiftError } from '../core/errors.js';
import type { ChoiceCheckResponse, ChoiceNote, RunChoice } from '../dashboard/api-types.js';
import { WORKSPACE_FILES } from '../handoff/formats.js';
import { buildRunConfig, plannerModelId, type RunConfig } from '../orchestrator/config.js';
import { checkRunModels } from '../orchestrator/preflight.js';
import { runName } from '../orchestrator/run/index.js';
import { assertWorkspaceDir } from '../orchestrator/start-run.js';
import { openRunOn } from '../orchestrator/workspace-claim.js';
import { providerFactory } from '../workers/provider-factory.js';
import type { CliContext } from './context.js';

/** How long a model that answered the check's tiny request is not asked again (the form checks on every change). */
const PROBE_KEEP_MS = 10 * 60_000;

/** The form's defaults: the configured models, budget and lanes, and a new workspace in the data dir. */
export function defaultChoice(config: CliContext['config']): RunChoice {
  return {
    model: config.run.models.generator,
    budgetUsd: config.run.budgets.maxCostUsd,
    lanes: config.run.lanes,
    workspace: null,
  };
}

/** Models the form suggests: the configured ones, the named compatible servers, and known models not retired. */
export function suggestedModels(config: CliContext['config'], now: Date): string[] {
  const known = Object.keys(KNOWN_MODELS).filter(
    (id) => modelLifecycle(resolveModelSettings(id), now).state !== 'retired',
  );
  const servers = Object.keys(config.openaiCompatible).map((name) => `openai-compatible:${name}`);
  return [
    ...new Set([...Object.values(config.run.models).filter(Boolean), ...servers, ...known]),
  ] as string[];
}

/**
 * The run config and planner model of a choice: the chosen model for every role and the planner, like `--model`;
 * the configured default left as it is configured (per role), so a form nobody touched changes nothing.
 */
export function choiceConfig(
  config: CliContext['config'],
  choice: RunChoice,
  now: Date,
): { runConfig: RunConfig; planner: string } {
  const configured = choice.model === defaultChoice(config).model;
  const planner = configured ? plannerModelId(config.run.models) : choice.model;
  const runConfig = buildRunConfig(
    config.run,
    {
      ...(configured ? {} : { model: choice.model }),
      modelPlanner: planner,
      budgetUsd: choice.budgetUsd,
      lanes: choice.lanes,
    },
    now,
  );
  return { runConfig, planner };
}

const note = (field: ChoiceNote['field'], message: string): ChoiceNote => ({ field, message });

/** A checker of choices that remembers which models answered lately. */
export function choiceChecker(
  context: Pick<CliContext, 'config' | 'orchestrator'>,
  env: NodeJS.ProcessEnv,
): (choice: RunChoice) => Promise<ChoiceCheckResponse> {
  const answered = new Map<string, number>();
  return async (choice) => {
    const now = context.orchestrator.now();
    const problems: ChoiceNote[] = [];
    const warnings: ChoiceNote[] = [];
    const model = await checkModel(context, env, choice, now, answered);
    problems.push(...model.problems);
    warnings.push(...model.warnings);
    problems.push(...(await checkWorkspace(context, choice.workspace)));
    if (choice.lanes > 1) {
      warnings.push(
        note(
          'lanes',
          `${choice.lanes} lanes build ${choice.lanes} features at once; on a small or chained spec they cost more and gain nothing (the run shows the lanes model's estimate once the feature list is known, docs/lanes.md).`,
        ),
      );
    }
    return { ok: problems.length === 0, problems, warnings };
  };
}

async function checkModel(
  context: Pick<CliContext, 'config' | 'orchestrator'>,
  env: NodeJS.ProcessEnv,
  choice: RunChoice,
  now: Date,
  answered: Map<string, number>,
): Promise<{ problems: ChoiceNote[]; warnings: ChoiceNote[] }> {
  try {
    parseModelId(choice.model);
  } catch (error) {
    const meant = closestKnownModel(choice.model);
    const message = `${(error as Error).message}${meant ? ` (did you mean "${meant}"?)` : ''}.`;
    return { problems: [note('model', message)], warnings: [] };
  }
  const { runConfig, planner } = choiceConfig(context.config, choice, now);
  const fresh = (answered.get(choice.model) ?? 0) > now.getTime();
  const check = await checkRunModels(runConfig, {
    createProvider: providerFactory(context.config, env),
    request: context.config.preflight.request && !fresh,
    extraModels: { planner },
    now,
  });
  if (check.problems.length === 0 && check.models.every((model) => model.probe === 'ok')) {
    answered.set(choice.model, now.getTime() + PROBE_KEEP_MS);
  }
  // A model without a price is a matter of the budget: it is covered by the token budget, or needs a cap of none.
  const field = (text: string): ChoiceNote['field'] => (/has no price/.test(text) ? 'budgetUsd' : 'model');
  return {
    problems: check.problems.map((text) => note(field(text), text)),
    warnings: check.warnings.map((text) => note(field(text), text)),
  };
}

/** A chosen workspace: an absolute directory (or one to create in an existing parent) with no run and no list. */
async function checkWorkspace(
  context: Pick<CliContext, 'orchestrator'>,
  workspace: string | null,
): Promise<ChoiceNote[]> {
  if (workspace === null) return [];
  if (!path.isAbsolute(workspace)) {
    return [
      note(
        'workspace',
        `Workspace must be an absolute path on the dashboard's machine, not "${workspace}" (e.g. /home/me/apps/todo); leave it empty for a new folder in the data dir.`,
      ),
    ];
  }
  try {
    await assertWorkspaceDir(workspace);
  } catch (error) {
    return [note('workspace', error instanceof NightshiftError ? error.message : String(error))];
  }
  if (!existsSync(path.dirname(workspace))) {
    return [
      note(
        'workspace',
        `Workspace ${workspace} cannot be created: ${path.dirname(workspace)} does not exist.`,
      ),
    ];
  }
  if (existsSync(path.join(workspace, WORKSPACE_FILES.featureList))) {
    return [
      note(
        'workspace',
        `${workspace} already holds a feature list: a planned spec would not be read there. Choose an empty or new directory (or resume that workspace's run).`,
      ),
    ];
  }
  const open = await openRunOn(context.orchestrator, { kind: 'local', dir: workspace });
  return open
    ? [note('workspace', `${workspace} has an open run: ${open.id} "${runName(open)}" is ${open.status}.`)]
    : [];
}
