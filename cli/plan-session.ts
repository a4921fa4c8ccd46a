/** One planner session from the command line (`plan`, `run --prompt`): the configured model, progress on stderr. */
import type { EventSink } from '../agent/events.js';
import { planDataDir } from '../core/paths.js';
import type { NightshiftConfig } from '../orchestrator/config.js';
import { harnessSecrets } from '../orchestrator/harness-secrets.js';
import { newPlanId, type PlannerResult, runPlanner } from '../roles/planner.js';
import type { AskUser } from '../roles/planner-tools.js';
import { providerFactory } from '../workers/provider-factory.js';
import { formatMoney, type TextSink } from './output.js';

/** What {@link planFromCli} needs. */
export interface CliPlanInput {
  prompt: string;
  config: NightshiftConfig;
  /** The planner's model (from `plannerModelId`). */
  modelId: string;
  env: NodeJS.ProcessEnv;
  stderr: TextSink;
  /** Interactive mode; absent: unattended (no questions). */
  ask?: AskUser;
}

/** A model-chosen name as safe terminal text: printable ASCII only, cut short. */
function printable(name: string): string {
  return name.replace(/[^\x20-\x7e]/g, '?').slice(0, 60);
}

/** A line on stderr for what a person watching would want to know: refusals and model trouble. */
function progressSink(stderr: TextSink): EventSink {
  return (event) => {
    if (event.type === 'tool.ended' && event.isError) {
      stderr.write(
        event.name === 'submit_spec'
          ? 'planner: the harness refused the spec; the planner is revising it\n'
          : `planner: its ${printable(event.name)} call was refused\n`,
      );
    } else if (event.type === 'model.error') {
      stderr.write(`planner: model error (${event.kind})${event.willRetry ? ', retrying' : ''}\n`);
    }
  };
}

/** Runs the planner with the configured model; throws PlannerFailedError (exit 1) when it produced no spec. */
export async function planFromCli(input: CliPlanInput): Promise<PlannerResult> {
  const { config, stderr } = input;
  const provider = providerFactory(config, input.env)(input.modelId);
  const planId = newPlanId();
  stderr.write(`planning ${planId} with ${input.modelId}${input.ask ? '' : ' (unattended)'}…\n`);
  const plan = await runPlanner({
    planId,
    prompt: input.prompt,
    provider,
    prices: config.run.prices,
    dataDir: config.dataDir,
    limits: config.run.limits.planner,
    sink: progressSink(stderr),
    secrets: await harnessSecrets({ env: input.env, config, home: config.dataDir }),
    ...(input.ask ? { ask: input.ask } : {}),
  });
  stderr.write(
    `planner: spec accepted (${Buffer.byteLength(plan.spec)} bytes, ${plan.exchanges.length} question(s), ${formatMoney(plan.costUsd)}); record in ${planDataDir(config.dataDir, planId)}\n`,
  );
  return plan;
}
