import type { Feature } from '../handoff/formats.js';
import { answerQuestion as recordAnswer } from '../orchestrator/questions.js';
import type { RunRecord, RunStore } from '../orchestrator/run/index.js';
import { resumeStatus } from '../orchestrator/run/index.js';
import type { SteerFeature } from './steering.js';

/**
 * How the dashboard changes runs. The server only calls these; the orchestrator's versions (which also enqueue the
 * next job) replace the defaults below when the CLI wires the dashboard.
 */
export interface RunControls {
  /** Pauses a run at the next safe point (reason `user`). */
  pause(runId: string): Promise<unknown>;
  /** Resumes a paused or failed run. */
  resume(runId: string): Promise<unknown>;
  /** Cancels a run for good. */
  cancel(runId: string): Promise<unknown>;
  /** Unblocks a feature and resets its attempts so the planner picks it again. */
  retryFeature(runId: string, featureId: string): Promise<unknown>;
  /** Steers a feature (note, reopen, unblock; dashboard/steering.ts); default: the store-only `storeSteer`. */
  steer?: SteerFeature;
  /**
   * Adds a feature from a person's words (a writer session, orchestrator/feature-add.ts); absent when the dashboard
   * has no model to run it (a store-only dashboard): the route then says so.
   */
  addFeature?(runId: string, description: string, by: 'dashboard' | 'api'): Promise<Feature>;
  /** Answers a run's open question (`by`: the dashboard's page, or another client of the HTTP API). */
  answerQuestion(
    runId: string,
    questionId: string,
    answer: string,
    by: 'dashboard' | 'api',
  ): Promise<unknown>;
}

/** Controls that only change the run store (status and feature state); nothing is enqueued, the reconciler advances. */
export function storeRunControls(store: RunStore): RunControls {
  return {
    pause: (runId) => store.setStatus(runId, 'paused', { reason: 'user' }),
    resume: async (runId): Promise<RunRecord> => {
      const run = await store.getRun(runId);
      return store.setStatus(runId, resumeStatus(run.features.total));
    },
    cancel: (runId) => store.setStatus(runId, 'cancelled'),
    retryFeature: (runId, featureId) => store.retryFeature(runId, featureId),
    answerQuestion: (runId, questionId, answer, by) =>
      recordAnswer({ redis: store.redis, store, now: () => new Date() }, runId, questionId, answer, by),
  };
}
