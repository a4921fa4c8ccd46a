import { defaultWorkspaceDir } from '../core/paths.js';
import { PlanDesk, type PlanDeskOptions } from '../dashboard/plan-desk.js';
import { plannerModelId } from '../orchestrator/config.js';
import { harnessSecrets } from '../orchestrator/harness-secrets.js';
import { startPlannedRun } from '../orchestrator/planning.js';
import { newRunId } from '../orchestrator/run/index.js';
import { assertWorkspaceDir } from '../orchestrator/start-run.js';
import { PLANNER_ROLE, runPlanner } from '../roles/planner.js';
import { providerFactory } from '../workers/provider-factory.js';
import type { CliContext } from './context.js';
import { preflightForCli } from './preflight.js';
import { choiceChecker, choiceConfig, defaultChoice, suggestedModels } from './run-choice.js';
import { terminalSink } from './terminal-text.js';

/**
 * The dashboard's new-run form on a full orchestrator context: the planner with the chosen model (the configured
 * one by default, as `nightshift plan` without --model), and runs started through the same startPlannedRun →
 * startRun as the CLI, with the chosen budget and lanes, in the chosen workspace or a fresh one in the data dir.
 * Workers pick the run up like any `run --detach`.
 */
export function dashboardPlanDesk(
  context: Pick<CliContext, 'config' | 'orchestrator' | 'dataDir'>,
  env: NodeJS.ProcessEnv,
  options: PlanDeskOptions = {},
): PlanDesk {
  const { config, orchestrator } = context;
  const createProvider = providerFactory(config, env);
  return new PlanDesk(
    {
      model: plannerModelId(config.run.models),
      maxQuestions: PLANNER_ROLE.bounds.maxQuestions,
      defaults: defaultChoice(config),
      models: suggestedModels(config, orchestrator.now()),
      check: choiceChecker(context, env),
      plan: async ({ planId, prompt, ask, signal, choice }) =>
        runPlanner({
          planId,
          prompt,
          provider: createProvider(choiceConfig(config, choice, orchestrator.now()).planner),
          prices: config.run.prices,
          dataDir: config.dataDir,
          limits: config.run.limits.planner,
          ask,
          signal,
          secrets: await harnessSecrets({ env, config, home: config.dataDir }),
        }),
      startRun: async ({ plan, spec, choice }) => {
        const { runConfig, planner } = choiceConfig(config, choice, orchestrator.now());
        // The same checks as `nightshift run`: a refusal is shown on the plan, nothing is created.
        await preflightForCli(context, env, runConfig, {
          stderr: terminalSink(process.stderr),
          extraModels: { planner },
        });
        const id = newRunId(orchestrator.now());
        const dir = choice.workspace ?? defaultWorkspaceDir(context.dataDir, id);
        await assertWorkspaceDir(dir);
        return startPlannedRun(orchestrator, {
          plan,
          spec,
          workspace: { kind: 'local', dir },
          config: runConfig,
          dataDir: context.dataDir,
          id,
        });
      },
    },
    options,
  );
}
