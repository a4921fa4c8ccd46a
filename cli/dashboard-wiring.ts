import { answerRunQuestion, cancelRun, pauseRun, resumeRun, retryFeature } from '../orchestrator/controls.js';
import { connectedWorkers } from '../orchestrator/queues.js';
import { nextScheduledStart } from '../orchestrator/schedules.js';
import { steerFeature } from '../orchestrator/steering.js';
import { addFromConfig } from './add.js';
import { type CliDeps, openCliContext, orchestratorOptions, resolveDeps } from './context.js';
import type { OpenDashboardResources } from './dashboard.js';
import { dashboardPlanDesk } from './dashboard-planning.js';

/**
 * The dashboard's resources on a full orchestrator context: the same Redis lookup as every command
 * (embedded Redis included), bull-board on both queues, and controls that enqueue and notify like the CLI's.
 */
export function openWithOrchestrator(deps: CliDeps): OpenDashboardResources {
  return async () => {
    const context = await openCliContext(orchestratorOptions(resolveDeps(deps)));
    const { orchestrator } = context;
    const { env } = resolveDeps(deps);
    const planning = dashboardPlanDesk(context, env);
    return {
      store: orchestrator.store,
      queue: [orchestrator.queues.sessions, orchestrator.queues.control],
      controls: {
        pause: (runId) => pauseRun(orchestrator, runId, 'paused from the dashboard'),
        resume: (runId) => resumeRun(orchestrator, runId),
        cancel: (runId) => cancelRun(orchestrator, runId),
        retryFeature: (runId, featureId) => retryFeature(orchestrator, runId, featureId),
        steer: (runId, featureId, request, by) =>
          steerFeature(orchestrator, { runId, featureId, request, by, dataDir: context.dataDir }),
        addFeature: async (runId, text, by) => {
          const request = { runId, text, by, config: context.config, dataDir: context.dataDir, env };
          return (await addFromConfig(orchestrator, request)).feature;
        },
        answerQuestion: (runId, questionId, answer, by) =>
          answerRunQuestion(orchestrator, runId, questionId, answer, by),
      },
      nextScheduledStart: (runId) => nextScheduledStart(orchestrator, runId),
      connectedWorkers: () => connectedWorkers(orchestrator.queues),
      planning,
      close: () => {
        planning.close();
        return context.close();
      },
    };
  };
}
