import path from 'node:path';
import type { Job } from 'bullmq';
import type { ModelProvider } from '../agent/messages.js';
import { type ResolvedModelSettings, resolveModelSettings } from '../agent/models.js';
import { moduleLogger } from '../core/log.js';
import { gitRecordPath } from '../core/paths.js';
import { inSpan } from '../core/trace.js';
import type { BrowserSource } from '../evaluation/browser-source.js';
import { dependencyCacheDir, fillClone } from '../handoff/app-deps.js';
import { readFeatureList } from '../handoff/feature-list.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import { pushFastForward, syncWorkspace } from '../handoff/git-remote.js';
import { harnessRemoteCredentials } from '../handoff/remote-credentials.js';
import { advanceRun } from '../orchestrator/advance.js';
import { type SessionSpend, shouldCheckpointNow } from '../orchestrator/budgets.js';
import { appStartSettings, sandboxForRole } from '../orchestrator/config.js';
import { isMachineCondition, recordHarnessError, stepName } from '../orchestrator/harness-errors.js';
import { runSecrets } from '../orchestrator/harness-secrets.js';
import { MAIN_SLOT } from '../orchestrator/lanes/lane-scheduler.js';
import type { LaneRecord } from '../orchestrator/lanes/lanes.js';
import type { Orchestrator } from '../orchestrator/orchestrator.js';
import { harnessErrorStop } from '../orchestrator/progress-watch.js';
import { SessionJobData } from '../orchestrator/queues.js';
import {
  ACTIVE_STATUSES,
  type AcquireRunLockOptions,
  acquireRunLock,
  type RunRecord,
} from '../orchestrator/run/index.js';
import { describeAction, type SessionAction } from '../orchestrator/session-jobs.js';
import { runRoleSession } from '../roles/session.js';
import type { RoleName, SessionResult } from '../roles/session-result.js';
import type { RoleSessionInput } from '../roles/types.js';
import { EventForwarder } from './event-forwarder.js';
import { publishLane, publishSession, refreshLane, syncLane } from './lane-workspace.js';
import { runMerge } from './merge-step.js';
import type { NightshiftMetrics } from './metrics.js';
import { failingProvider } from './provider-factory.js';
import { clearRateLimit, handleRateLimit } from './rate-limit.js';
import { peopleInput } from './session-people.js';

const log = moduleLogger('workers/session-processor');

/** Everything a worker process gives its session jobs. */
export interface SessionWorkerDeps {
  orchestrator: Orchestrator;
  dataDir: string;
  /** Unique per worker process (host, pid, random): part of the lock token, and the clone cache's name. */
  workerId: string;
  browser: BrowserSource;
  /** A provider for a model id (`provider:model`) with the run's settings for it; may throw (no key). */
  createProvider(modelId: string, settings?: ResolvedModelSettings): ModelProvider;
  /** Aborted when the worker's shutdown grace period is over: sessions stop and checkpoint. */
  shutdown: AbortSignal;
  /** Pauses the whole queue for this long (BullMQ `worker.rateLimit`). */
  rateLimitQueue(ms: number): Promise<void>;
  /** Secret values to keep out of transcripts and events. */
  secrets: readonly string[];
  /** Run lock timing, on the job lock's clock (orchestrator/failover.ts). */
  runLock: Required<Pick<AcquireRunLockOptions, 'ttlMs' | 'renewMs' | 'waitMs'>>;
  /** Told how long each merge-queue step took (the worker's metrics). */
  metrics?: Pick<NightshiftMetrics, 'mergeFinished'>;
}

/** What a session job returned (BullMQ keeps it as the job's return value). */
export type SessionJobOutcome =
  | { kind: 'done'; outcome: SessionResult['outcome'] }
  | { kind: 'skipped'; reason: string }
  /** The session failed with the same harness error too often: the run pauses `harness-error`. */
  | { kind: 'harness-error' };

/**
 * Runs one session job: takes the run's lock (one session per run, even when a stalled job is delivered
 * twice), checks the job is still the run's current one, syncs the workspace, runs the role session,
 * pushes (remote runs), records the result and advances the run.
 */
export async function processSessionJob(deps: SessionWorkerDeps, job: Job): Promise<SessionJobOutcome> {
  const data = SessionJobData.parse(job.data);
  const { orchestrator } = deps;
  const jobId = job.id ?? `${data.runId}-${data.seq}`;
  const lock = await acquireRunLock(
    orchestrator.redis,
    orchestrator.prefix,
    data.runId,
    `${jobId}/${deps.workerId}`,
    { ...deps.runLock, ...(data.slot ? { name: `lane-${data.slot}` } : {}) },
  );
  if (!lock) return skip(data, 'another session of this run holds its lock');
  let harnessError = false;
  try {
    const run = await orchestrator.store.getRun(data.runId);
    if (!ACTIVE_STATUSES.includes(run.status)) return skip(data, `run is ${run.status}`);
    const stale = staleReason(run, data);
    if (stale) return skip(data, stale);
    if (data.action.kind === 'merge') {
      await runMerge(deps, data.runId, data.seq, {
        lanes: data.action.lanes.map((entry) => entry.lane),
        fullSweep: data.action.fullSweep === true,
      });
    } else {
      const existing = await orchestrator.store.getSession(data.runId, data.seq);
      if (existing?.finishedAt) return skip(data, 'this session already has a result');
      const result = await runSession(deps, run, { ...data, action: data.action }, jobId, lock.lost).catch(
        (error: unknown) => countHarnessFailure(deps, data, error, lock.lost),
      );
      if (result === 'pause') harnessError = true;
      else if (result.outcome === 'rate_limited') await handleRateLimit(deps, run, result);
      else await clearRateLimit(orchestrator, run.id);
    }
  } finally {
    await lock.release();
  }
  await advanceRun(orchestrator, data.runId, { finishedJobId: jobId }).catch((error) =>
    log.warn(
      { err: error, runId: data.runId },
      'advance after the session failed; the reconciler will retry',
    ),
  );
  if (harnessError) return { kind: 'harness-error' };
  const session = await orchestrator.store.getSession(data.runId, data.seq);
  return { kind: 'done', outcome: session?.outcome ?? 'aborted' };
}

/**
 * A session that threw (the harness's failure, not the model's) is counted against its step. Below the limit the
 * error is rethrown, so BullMQ retries the job; at the limit it resolves to `pause`: the advance after the job
 * pauses the run `harness-error` instead of starting the same failing session again. A shutdown or a lost lock
 * is not the step's fault and is not counted, nor is a full disk (`isMachineCondition`).
 */
async function countHarnessFailure(
  deps: SessionWorkerDeps,
  data: SessionJobData,
  error: unknown,
  lockLost: AbortSignal,
): Promise<'pause'> {
  if (
    deps.shutdown.aborted ||
    lockLost.aborted ||
    data.action.kind === 'merge' ||
    isMachineCondition(error)
  ) {
    throw error;
  }
  const { kind, featureIds } = describeAction(data.action);
  const run = await recordHarnessError(
    deps.orchestrator.store,
    data.runId,
    stepName(kind, featureIds),
    error,
  );
  if (!harnessErrorStop(run)) throw error;
  return 'pause';
}

/** Why the job is no longer its slot's current one (a stale or duplicate delivery), if it is not. */
function staleReason(run: RunRecord, data: SessionJobData): string | undefined {
  if (data.slot === undefined) {
    return run.seq === data.seq ? undefined : `stale job: the run is at session ${run.seq}`;
  }
  const current =
    data.slot === MAIN_SLOT ? run.mainSeq : run.lanes.find((lane) => lane.lane === data.slot)?.seq;
  return current === data.seq ? undefined : `stale job: slot ${data.slot} is at job ${current ?? 'none'}`;
}

function skip(data: SessionJobData, reason: string): SessionJobOutcome {
  log.info({ runId: data.runId, seq: data.seq, reason }, 'session job skipped');
  return { kind: 'skipped', reason };
}

/** Runs one role session in a span of its own (its model requests, tools and git operations nest under it). */
function runSession(
  deps: SessionWorkerDeps,
  run: RunRecord,
  data: SessionJobData & { action: SessionAction },
  jobId: string,
  lockLost: AbortSignal,
): Promise<SessionResult> {
  const { role, kind, featureIds } = describeAction(data.action);
  const attributes = {
    'nightshift.run_id': run.id,
    'nightshift.session.seq': data.seq,
    'nightshift.session.role': role,
    'nightshift.session.kind': kind,
    'nightshift.feature_ids': featureIds,
    'nightshift.worker_id': deps.workerId,
    'nightshift.lane': data.slot,
  };
  return inSpan(`session ${role}`, attributes, async (span) => {
    const result = await runSessionSteps(deps, run, data, jobId, lockLost);
    span.set({ 'nightshift.session.outcome': result.outcome });
    return result;
  });
}

/** Runs one role session on its workspace (the run's, or its lane's clone) and records its result. */
async function runSessionSteps(
  deps: SessionWorkerDeps,
  run: RunRecord,
  data: SessionJobData & { action: SessionAction },
  jobId: string,
  lockLost: AbortSignal,
): Promise<SessionResult> {
  const { orchestrator } = deps;
  const action = describeAction(data.action);
  const lane = data.slot ? run.lanes.find((candidate) => candidate.lane === data.slot) : undefined;
  await orchestrator.store.recordSessionStarted(run.id, {
    seq: data.seq,
    jobId,
    role: action.role,
    kind: action.kind,
    featureIds: action.featureIds,
    workerId: deps.workerId,
    ...(lane ? { lane: lane.lane } : {}),
  });
  const workspace = await inSpan('workspace.prepare', { 'nightshift.lane': lane?.lane }, () =>
    lane
      ? prepareLane(deps, run, lane, { refresh: action.role === 'generator', seq: data.seq })
      : prepareWorkspace(deps, run),
  );
  // The worker's secrets and this run's own (its webhooks, its remote's credential).
  const secrets = [...new Set([...deps.secrets, ...(await runSecrets(run, deps.dataDir))])];
  const forwarder = new EventForwarder(orchestrator.store, run.id, data.seq, secrets);
  const signal = AbortSignal.any([deps.shutdown, lockLost]);
  const session = { seq: data.seq, action, lane, workspace, secrets, forwarder, signal };
  const people = await peopleInput(orchestrator, run, session);
  const result = await runRoleSession({ ...roleSessionInput(deps, run, session), ...people });
  const publish = workspace.publish;
  if (publish) await inSpan('session.publish', {}, () => publishSession(publish, result));
  await inSpan('session.record', {}, async () => {
    await forwarder.flush();
    await recordResult(orchestrator, run.id, data.seq, { role: action.role, dir: workspace.dir }, result);
  });
  return result;
}

/** The role session's input from the run's settings and this worker's workspace, browser and secrets. */
function roleSessionInput(
  deps: SessionWorkerDeps,
  run: RunRecord,
  session: {
    seq: number;
    action: ReturnType<typeof describeAction>;
    lane: LaneRecord | undefined;
    workspace: PreparedWorkspace;
    secrets: string[];
    forwarder: EventForwarder;
    signal: AbortSignal;
  },
): RoleSessionInput {
  const { action, lane, workspace } = session;
  const { role, featureIds, mode } = action;
  const limits = run.config.limits[role];
  return {
    role,
    runId: run.id,
    session: session.seq,
    workspace: workspace.dir,
    ...(workspace.branch ? { branch: workspace.branch } : {}),
    ...(lane ? { lane: lane.lane } : {}),
    ...(workspace.head ? { startHead: workspace.head } : {}),
    featureIds,
    ...(mode ? { mode } : {}),
    provider: providerFor(deps, run, role),
    prices: run.config.prices,
    limits: { maxSteps: limits.maxSteps, maxMinutes: limits.maxMinutes },
    dataDir: deps.dataDir,
    sandbox: sandboxForRole(run.config.sandbox, role),
    ...(run.config.featureCount ? { featureCount: run.config.featureCount } : {}),
    ...appStartSettings(run.config.app),
    // The app the initializer described is started once after it, in the app's box (the evaluator's settings).
    ...(role === 'initializer'
      ? { startAppAfterInit: { sandbox: sandboxForRole(run.config.sandbox, 'evaluator') } }
      : {}),
    browser: deps.browser,
    signal: session.signal,
    sink: session.forwarder.push,
    onNotice: session.forwarder.notice,
    stopReason: (state) =>
      midSessionStop(
        deps.orchestrator,
        run.id,
        state.costUsd === null
          ? { unpricedTokens: Object.values(state.usage).reduce((sum, tokens) => sum + tokens, 0) }
          : { costUsd: state.costUsd },
      ),
    secrets: session.secrets,
    questions: run.questions,
  };
}

/** Records the session's result; the initializer's feature list enters the run store with it, in one atomic step. */
async function recordResult(
  orchestrator: Orchestrator,
  runId: string,
  seq: number,
  session: { role: RoleName; dir: string },
  result: SessionResult,
): Promise<void> {
  const features =
    session.role === 'initializer' && result.outcome === 'completed'
      ? await readFeatureList(session.dir)
      : undefined;
  const recorded = await orchestrator.store.recordSessionResult(
    runId,
    seq,
    result,
    features ? { features } : {},
  );
  orchestrator.onSessionEvents?.(recorded.run, recorded.events);
}

/** Budgets, deadline and the run's status, checked before every model request of a running session. */
async function midSessionStop(
  orchestrator: Orchestrator,
  runId: string,
  spent: SessionSpend,
): Promise<string | undefined> {
  const run = await orchestrator.store.getRun(runId);
  if (!ACTIVE_STATUSES.includes(run.status))
    return `the run was ${run.status === 'paused' ? 'paused' : run.status}`;
  const stop = shouldCheckpointNow({ run }, orchestrator.now(), spent);
  return stop ? `${stop.reason}: ${stop.detail}` : undefined;
}

/**
 * The role's model with the run's settings for it. A provider that cannot be made here (this worker has no
 * key for it) becomes one that fails every request with the reason, so the session and the run end with it.
 */
function providerFor(deps: SessionWorkerDeps, run: RunRecord, role: RoleName) {
  const modelId = run.config.models[role];
  const settings = resolveModelSettings(modelId, {
    overrides: run.config.modelSettings,
    prices: run.config.prices,
  });
  try {
    return deps.createProvider(modelId, settings);
  } catch (error) {
    log.error({ err: error, runId: run.id, modelId }, 'no provider for the model');
    return failingProvider(modelId, error, settings);
  }
}

interface PreparedWorkspace {
  dir: string;
  /** The branch the session works on, when it is not the local workspace's checked-out one. */
  branch?: string;
  /** Pushes the session's commits (a remote run's branch, a lane's branch). */
  publish?: () => Promise<void>;
  /** The commit a clone was just synced to, nothing left over (see RoleSessionInput.startHead). */
  head?: string;
}

/** A lane's session works in this worker's clone of the lane, and pushes the lane's branch after. */
async function prepareLane(
  deps: SessionWorkerDeps,
  run: RunRecord,
  lane: LaneRecord,
  options: { refresh: boolean; seq: number },
): Promise<PreparedWorkspace> {
  const synced = await syncLane(deps, run, lane, { laneOnly: !options.refresh });
  const { repo } = synced;
  // A generator builds on what the run has now (features merged since the lane began), when that merges cleanly.
  const head = options.refresh ? await refreshLane(run, synced, lane, options.seq) : synced.head;
  await fillCloneFromRun(deps, run, repo);
  return {
    dir: repo.dir,
    branch: lane.branch,
    head,
    publish: () => publishLane(deps, run, repo, lane.branch),
  };
}

/** A new clone gets the run's kept dependencies (unless `app.dependencyCache` is off), as app copies do. */
async function fillCloneFromRun(deps: SessionWorkerDeps, run: RunRecord, repo: WorkspaceRepo): Promise<void> {
  if (run.config.app.dependencyCache) await fillClone(repo, dependencyCacheDir(deps.dataDir, run.id));
}

/** A local run works in its directory; a remote run in this worker's own clone, reset to the run branch. */
async function prepareWorkspace(deps: SessionWorkerDeps, run: RunRecord): Promise<PreparedWorkspace> {
  if (run.workspace.kind === 'local') return { dir: run.workspace.path };
  const cacheDir = path.join(deps.dataDir, 'clones', deps.workerId, run.id);
  const synced = await syncWorkspace({
    url: run.workspace.url,
    branch: run.workspace.branch,
    cacheDir,
    // The same known-good record the session checks `.git` against (recorded by the clone).
    guard: { recordFile: gitRecordPath(deps.dataDir, run.id, cacheDir) },
    credentials: harnessRemoteCredentials(deps.dataDir),
  });
  await fillCloneFromRun(deps, run, synced.repo);
  const branch = run.workspace.branch;
  return {
    dir: synced.repo.dir,
    branch,
    head: synced.head,
    publish: () => pushFastForward(synced.repo, branch).then(() => undefined),
  };
}
