import { InputError, NightshiftError } from '../core/errors.js';
import type { AnsweredBy, Question } from '../handoff/questions.js';
import { advanceRun } from './advance.js';
import { checkStopConditions } from './budgets.js';
import { changeStatus } from './change-status.js';
import { RunConfig } from './config.js';
import { sessionJobId } from './keys.js';
import { noWorkerNote } from './no-worker.js';
import type { Orchestrator } from './orchestrator.js';
import { answerQuestion } from './questions.js';
import { connectedWorkers } from './queues.js';
import { ACTIVE_STATUSES, type FeatureState, type RunRecord, type RunStatus } from './run/run-state.js';
import { resumeStatus } from './run/transitions.js';

/**
 * Pauses a run at the next safe point: no new session is queued, and a session in flight ends at its
 * next turn with a checkpoint (workers check the status before each model request).
 */
export async function pauseRun(
  orchestrator: Orchestrator,
  runId: string,
  detail = 'paused by the user',
): Promise<RunRecord> {
  const run = await orchestrator.store.getRun(runId);
  const paused = await changeStatus(orchestrator, run, 'paused', { reason: 'user', detail });
  await removeWaitingJob(orchestrator, paused);
  return paused;
}

/** New limits given with `resume` (the budget a pause hit can be raised in the same command). */
export interface ResumeLimits {
  /** New cost cap in USD for the whole run (null: no cap). */
  budgetUsd?: number | null;
  /** New session cap for the whole run. */
  maxSessions?: number;
  /** A new deadline this long from now (ms). */
  forMs?: number;
}

/** Options of {@link resumeRun}. */
export interface ResumeOptions extends ResumeLimits {
  /** Resume even if a budget is still spent (it pauses again at once); a scheduled window does, to record it. */
  evenIfStillStopped?: boolean;
}

/** Statuses `resume` acts on. */
export const RESUMABLE_STATUSES: readonly RunStatus[] = ['paused', 'failed', 'incomplete'];

/** A `resume` that would do nothing (the run is not paused) or pause again at once (a budget still spent). */
export class ResumeRefusedError extends NightshiftError {
  constructor(runId: string, reason: string, hint: string) {
    super('RUN_RESUME_REFUSED', `Run ${runId} was not resumed: ${reason}.`, { hint, exitCode: 2 });
  }
}

/**
 * Resumes a paused or failed run (an incomplete one: retries its blocked features) and queues its next
 * session, after applying new limits. Refuses, changing nothing, a run that is not paused, and one whose
 * budget is still spent (it would pause again at once): raise it with `limits`.
 */
export async function resumeRun(
  orchestrator: Orchestrator,
  runId: string,
  options: ResumeOptions = {},
): Promise<RunRecord> {
  const run = await orchestrator.store.getRun(runId);
  if (!RESUMABLE_STATUSES.includes(run.status)) {
    throw new ResumeRefusedError(
      runId,
      `it is ${run.status}, not paused; nothing was queued`,
      ACTIVE_STATUSES.includes(run.status)
        ? await alreadyRunningHint(orchestrator, run)
        : `A ${run.status} run starts no more sessions; start a new run on its workspace with \`nightshift run SPEC --workspace DIR --new\`.`,
    );
  }
  const now = orchestrator.now();
  const limited = applyLimits(run.config, options, now);
  if (!options.evenIfStillStopped) {
    const stop = checkStopConditions({ run: { ...run, config: limited } }, now);
    // `stuck` starts over on resume; a passed deadline is cleared below.
    if (stop?.reason === 'budget') {
      throw new ResumeRefusedError(
        runId,
        `its budget is still spent (${stop.detail})`,
        `Raise it in the same command: \`nightshift resume ${runId} --budget-usd N\` (whole-run cap), \`--max-sessions N\` or, for models without a price, budgets.maxUnpricedTokens in the config.`,
      );
    }
  }
  if (limited !== run.config) await orchestrator.store.updateConfig(runId, () => limited);
  if (run.status === 'incomplete') {
    for (const feature of (await orchestrator.store.listFeatures(runId)).filter((f) => f.blocked)) {
      await orchestrator.store.retryFeature(runId, feature.id);
    }
  }
  const state = await orchestrator.store.loadState(runId);
  const resumed = await changeStatus(orchestrator, state.run, resumeStatus(state.features.length));
  await advanceRun(orchestrator, runId);
  return resumed;
}

/** What to do about a run that is already active: follow it, or give it a worker when none is connected. */
async function alreadyRunningHint(orchestrator: Orchestrator, run: RunRecord): Promise<string> {
  const workers = await connectedWorkers(orchestrator.queues);
  return workers === 0
    ? `It is already running, but ${noWorkerNote(run)}.`
    : `It is already running: follow it with \`nightshift follow ${run.id}\`.`;
}

/** The run's config with new limits, and without a deadline that has passed (resuming means "go on"). */
function applyLimits(config: RunConfig, limits: ResumeLimits, now: Date): RunConfig {
  const budgets = { ...config.budgets };
  if (limits.budgetUsd !== undefined) budgets.maxCostUsd = limits.budgetUsd;
  if (limits.maxSessions !== undefined) budgets.maxSessions = limits.maxSessions;
  if (limits.forMs !== undefined) budgets.deadline = new Date(now.getTime() + limits.forMs).toISOString();
  else if (budgets.deadline && Date.parse(budgets.deadline) <= now.getTime()) budgets.deadline = undefined;
  const changed = (Object.keys(budgets) as Array<keyof typeof budgets>).some(
    (key) => budgets[key] !== config.budgets[key],
  );
  return changed ? RunConfig.parse({ ...config, budgets }) : config;
}

/** Cancels a run for good; a session in flight stops at its next turn with a checkpoint. */
export async function cancelRun(orchestrator: Orchestrator, runId: string): Promise<RunRecord> {
  const run = await orchestrator.store.getRun(runId);
  const cancelled = await changeStatus(orchestrator, run, 'cancelled', { detail: 'cancelled by the user' });
  await removeWaitingJob(orchestrator, cancelled);
  return cancelled;
}

/** Clears a feature's attempts and blocked flag so the scheduler picks it up again, and advances the run. */
export async function retryFeature(
  orchestrator: Orchestrator,
  runId: string,
  featureId: string,
): Promise<FeatureState> {
  const feature = await orchestrator.store.retryFeature(runId, featureId);
  const run = await orchestrator.store.getRun(runId);
  // An incomplete run (it ended with blocked features) goes on with the retried one.
  if (run.status === 'incomplete') await changeStatus(orchestrator, run, 'building');
  await advanceRun(orchestrator, runId);
  return feature;
}

/** Queued (not yet started) sessions of a stopped run are dropped, every lane's too; running ones stop by themselves. */
async function removeWaitingJob(orchestrator: Orchestrator, run: RunRecord): Promise<void> {
  const seqs = new Set([run.seq, run.mainSeq, ...run.lanes.map((lane) => lane.seq)].filter((seq) => seq > 0));
  for (const seq of seqs) {
    const job = await orchestrator.queues.sessions.getJob(sessionJobId(run.id, seq));
    if (job && ['waiting', 'delayed', 'prioritized'].includes(await job.getState())) {
      await job.remove().catch(() => undefined);
    }
  }
}

/**
 * A person's answer to a run's question: recorded (`question.answered`), a run paused for its questions goes on,
 * and the run advances (the waiting feature's next session gets the answer in its brief).
 */
export async function answerRunQuestion(
  orchestrator: Orchestrator,
  runId: string,
  questionId: string,
  answer: string,
  by: AnsweredBy,
): Promise<Question> {
  if (answer.trim() === '') {
    throw new InputError('ANSWER_EMPTY', `The answer to ${questionId} is empty.`, {
      hint: 'Give the answer as text, e.g. `nightshift answer RUN Q-1 "use euros"`.',
    });
  }
  const { run, question } = await answerQuestion(orchestrator, runId, questionId, answer, by);
  if (run.status === 'paused' && run.pausedReason === 'questions') {
    await changeStatus(orchestrator, run, resumeStatus(run.features.total));
  }
  if (ACTIVE_STATUSES.includes(run.status) || run.pausedReason === 'questions')
    await advanceRun(orchestrator, runId);
  return question;
}
