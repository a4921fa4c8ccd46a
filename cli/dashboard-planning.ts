import { defaultWorkspaceDir } from '../core/paths.js';
import { PlanDesk, type PlanDeskOptions } from '../dashboard/plan-desk.js';
import { buildRunConfig, plannerModelId } from '../orchestrator/config.js';
import { harnessSecrets } from '../orchestrator/harness-secrets.js';
import { startPlannedRun } from '../orchestrator/planning.js';
import { newRunId } from '../orchestrator/run-state.js';
import { PLANNER_ROLE, runPlanner } from '../roles/planner.js';
import { providerFactory } from '../workers/provider-factory.js';
import type { CliContext } from './context.js';
import { preflightForCli } from './preflight.js';

/**
 * The dashboard's new-run form on a full orchestrator context: the planner with the configured model (as
 * `nightshift plan` without --model), and runs started through the same startPlannedRun → startRun as the CLI,
 * in a fresh workspace in the data dir. Workers pick the run up like any `run --detach`.
 */
export function dashboardPlanDesk(
  context: Pick<CliContext, 'config' | 'orchestrator' | 'dataDir'>,
  env: NodeJS.ProcessEnv,
  options: PlanDeskOptions = {},
): PlanDesk {
  const { config, orchestrator } = context;
  const model = plannerModelId(config.run.models);
  const createProvider = providerFactory(config, env);
  return new PlanDesk(
    {
      model,
      maxQuestions: PLANNER_ROLE.bounds.maxQuestions,
      plan: async ({ planId, prompt, ask, signal }) =>
        runPlanner({
          planId,
          prompt,
          provider: createProvider(model),
          prices: config.run.prices,
          dataDir: config.dataDir,
          limits: config.run.limits.planner,
          ask,
          signal,
          secrets: await harnessSecrets({ env, config, home: config.dataDir }),
        }),
      startRun: async ({ plan, spec }) => {
        const runConfig = buildRunConfig(config.run, { modelPlanner: model }, orchestrator.now());
        // The same checks as `nightshift run`: a refusal is shown on the plan, nothing is created.
        await preflightForCli(context, env, runConfig, { stderr: process.stderr });
        const id = newRunId(orchestrator.now());
        return startPlannedRun(orchestrator, {
          plan,
          spec,
          workspace: { kind: 'local', dir: defaultWorkspaceDir(context.dataDir, id) },
          config: runConfig,
          dataDir: context.dataDir,
          id,
        });
      },
    },
    options,
  );
}
