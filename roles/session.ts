import { realpath } from 'node:fs/promises';
import { priceForProvider } from '../agent/cost.js';
import type { AgentEvent } from '../agent/events.js';
import { type AgentResult, type LoopHooks, runAgent } from '../agent/loop.js';
import { emptyUsage } from '../agent/messages.js';
import { TranscriptWriter } from '../agent/transcript.js';
import { moduleLogger } from '../core/log.js';
import { gitRecordPath, repoBackupDir, sessionTranscriptPath } from '../core/paths.js';
import { inSpan } from '../core/trace.js';
import { syncFeatureList } from '../handoff/feature-list-sync.js';
import type { IntegrityViolation } from '../handoff/formats.js';
import { commitsSince, head, openRepo, rollback, type WorkspaceRepo } from '../handoff/git.js';
import { backupRepo, verifyDescendsFrom } from '../handoff/git-history.js';
import { guardFeatureList } from '../handoff/integrity.js';
import { afterBackup, untilBackedUp } from './backup-wait.js';
import { prepareEvaluator } from './evaluator.js';
import { prepareGenerator } from './generator.js';
import { prepareInitializer } from './initializer.js';
import type {
  LoopEnding,
  PreparedSession,
  RoleContextPolicy,
  RoleFinish,
  SessionPreparer,
} from './prepared-session.js';
import type { SessionResult } from './session-result.js';
import type { RoleSessionInput } from './types.js';
import { applyVerdicts } from './verdicts.js';

const log = moduleLogger('roles/session');

export { AGENT_IDENTITY } from './commit.js';

const PREPARERS: Record<RoleSessionInput['role'], SessionPreparer> = {
  initializer: prepareInitializer,
  generator: prepareGenerator,
  evaluator: prepareEvaluator,
};

/** Share of the window at which a role is told to wrap up, and at which the session is ended. */
const CONTEXT_NOTE_AT = 0.8;
const CONTEXT_END_AT = 0.95;

/** What each role is told at 80 % of its window when its prepared session says nothing else. */
const DEFAULT_CONTEXT: Record<RoleSessionInput['role'], RoleContextPolicy> = {
  initializer: {
    nearFullNote:
      'The context window is nearly full. Make sure feature_list.json, init.sh and progress.md are written and committed, then stop.',
    wrapUp: 'make sure feature_list.json, init.sh and progress.md are written, commit them, and stop.',
  },
  generator: {
    nearFullNote: 'The context window is nearly full. Checkpoint now: commit, append a progress note, stop.',
  },
  evaluator: {
    nearFullNote:
      'The context window is nearly full. Submit your verdicts now (submit_verdict) with what you have observed so far — a step you could not check is not ok — then stop.',
    wrapUp:
      'submit a verdict for every feature still open (submit_verdict). A step you did not perform and see is not ok: submit fail if the product was wrong, blocked if the app or browser kept you from checking. Never pass on what you did not see.',
  },
};

/**
 * Runs one session of one role from a clean tree at the run branch's head: the harness orients the
 * model, runs the loop with the role's tools and hooks, closes the session the role's way (validation,
 * WIP commit, verdicts), then checks the history and the feature list and reverts what was not allowed.
 */
export async function runRoleSession(input: RoleSessionInput): Promise<SessionResult> {
  const clock = input.clock ?? Date.now;
  const startedAt = clock();
  const workspace = await realpath(input.workspace);
  const gitViolations: IntegrityViolation[] = [];
  const repo = openGuardedRepo(input, workspace, gitViolations);
  const startCommit = await inSpan('session.open', {}, () => openSession(input, repo));
  const { prepared, backup } = await prepareBesideBackup(input, repo, startCommit);
  const { finished, violations } = await runChecked(input, repo, startCommit, prepared, backup);
  const { endCommit, commits } = await inSpan('session.close', {}, async () => {
    if (input.role === 'evaluator' && finished.verdicts.length) {
      await applyVerdicts(repo, finished.verdicts);
    }
    const commits = await commitsSince(repo, startCommit);
    // The newest of `start..HEAD` is HEAD; none means HEAD is the start or behind it (a history put back).
    return { endCommit: commits.at(-1) ?? (await head(repo)) ?? startCommit, commits };
  });
  for (const violation of finished.violations ?? [])
    input.onNotice?.({ type: 'integrity.violation', violation });
  return sessionResult(input, finished, {
    startCommit,
    endCommit,
    commits,
    startedAt,
    violations: [...gitViolations, ...(finished.violations ?? []), ...violations],
  });
}

/** The commit the session starts from: the last one, leftovers removed, and a person's feature-list edits in. */
async function openSession(input: RoleSessionInput, repo: WorkspaceRepo): Promise<string> {
  const headCommit = input.startHead ?? (await head(repo));
  if (!headCommit) throw new Error(`${input.workspace} has no commit yet: create the workspace first`);
  // Leftovers of a crashed session are not trusted: every session starts from the last commit (a clone the harness
  // has just synced starts there already).
  if (!input.startHead) await rollback(repo, headCommit);
  // What a person changed in the list since (a feature added, one reopened) is in it before the session starts.
  const synced = input.featureListSync
    ? await syncFeatureList(repo, input.featureListSync, { runId: input.runId, session: input.session })
    : undefined;
  return synced?.sha ?? headCommit;
}

/** The workspace's repository, its `.git` compared with the known-good record before every harness git command. */
function openGuardedRepo(
  input: RoleSessionInput,
  workspace: string,
  gitViolations: IntegrityViolation[],
): WorkspaceRepo {
  return openRepo(workspace, {
    guard: {
      recordFile: gitRecordPath(input.dataDir, input.runId, workspace),
      onViolation: (violation) => {
        gitViolations.push(violation);
        input.onNotice?.({ type: 'integrity.violation', violation });
      },
    },
  });
}

/** A role's closing with the loop that produced it (none when the session ended before the model). */
type FinishedSession = RoleFinish & { agent?: AgentResult | undefined };

/** Runs the prepared session (or takes the preparation's early end), then checks the history and the feature list. */
async function runChecked(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  startCommit: string,
  prepared: PreparedSession | RoleFinish,
  backup: Promise<void>,
): Promise<{ finished: FinishedSession; violations: IntegrityViolation[] }> {
  const preparedSession = 'system' in prepared ? prepared : undefined;
  const integrity = () =>
    inSpan('session.integrity', {}, () => checkIntegrity(input, repo, startCommit, preparedSession));
  let finished: FinishedSession;
  try {
    finished = preparedSession
      ? await runPreparedSession(input, repo, preparedSession, backup)
      : { ...(await backup.then(() => prepared as RoleFinish)), agent: undefined };
  } catch (error) {
    // A session that destroyed the repository (e.g. `.git` deleted) makes the role's own git calls throw:
    // the history check must still run so the workspace is rebuilt, and the session ends as failed.
    const violations = await integrity();
    if (violations.length === 0) throw error;
    log.warn({ err: error, violations }, 'the session broke the workspace; restored');
    finished = {
      outcome: 'failed',
      reason: `the session broke the workspace (${(error as Error).message}); it was restored`,
      verdicts: [],
      agent: undefined,
    };
    return { finished, violations };
  }
  return { finished, violations: await integrity() };
}

/** The session's record: the role's closing, the loop's usage and cost, the commits and every violation found. */
function sessionResult(
  input: RoleSessionInput,
  finished: FinishedSession,
  history: {
    startCommit: string;
    endCommit: string;
    commits: SessionResult['commits'];
    startedAt: number;
    violations: IntegrityViolation[];
  },
): SessionResult {
  const { startedAt } = history;
  return {
    role: input.role,
    featureIds: input.featureIds,
    outcome: finished.outcome,
    ...(finished.reason === undefined ? {} : { reason: finished.reason }),
    model: input.provider.id,
    startCommit: history.startCommit,
    endCommit: history.endCommit,
    commits: history.commits,
    usage: finished.agent?.usage ?? emptyUsage(),
    // A session that never reached the model costs nothing, but only a priced model's nothing is known.
    costUsd: finished.agent
      ? finished.agent.costUsd
      : priceForProvider(input.provider, input.prices) === null
        ? null
        : 0,
    steps: finished.agent?.steps ?? 0,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: (input.clock ?? Date.now)() - startedAt,
    violations: history.violations,
    verdicts: finished.verdicts,
    ...(finished.agent?.failure?.retryAfterMs === undefined
      ? {}
      : { retryAfterMs: finished.agent.failure.retryAfterMs }),
    ...(finished.appStart ? { appStart: finished.appStart } : {}),
    ...(finished.askedQuestion ? { askedQuestion: finished.askedQuestion } : {}),
    ...(finished.agent?.failure && finished.outcome === 'provider_error'
      ? { providerFailure: { kind: finished.agent.failure.kind, message: finished.agent.failure.message } }
      : {}),
  };
}

/**
 * A session that cannot change the workspace needs no fresh mirror: the evaluator's tools cannot write (read-only
 * file tools, no `bash`), and in a box its app (in a copy, the rest of the filesystem read-only) cannot either.
 * Unboxed (`sandbox: none`) the app is the generator's code running as this user: the mirror is refreshed as for
 * any session. Skipping it takes a `git fetch` (six processes) off every boxed evaluation.
 */
export function cannotWriteWorkspace(input: Pick<RoleSessionInput, 'role' | 'sandbox'>): boolean {
  return input.role === 'evaluator' && (input.sandbox?.sandbox ?? 'auto') !== 'none';
}

/**
 * Prepares the role while the backup mirror is refreshed (the backup only reads the workspace). The agent does not
 * wait for the backup: its first model request overlaps it, and its tools wait for it ({@link afterBackup}), so a
 * session that can write never changes the workspace without a mirror holding its start commit.
 */
async function prepareBesideBackup(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  startCommit: string,
): Promise<{ prepared: PreparedSession | RoleFinish; backup: Promise<void> }> {
  const backup = cannotWriteWorkspace(input)
    ? Promise.resolve()
    : inSpan('backup.mirror', {}, () =>
        backupRepo(repo, repoBackupDir(input.dataDir, input.runId, input.lane), { head: startCommit }),
      );
  // Awaited by whoever runs the session; until then a failure must not count as unhandled.
  backup.catch(() => undefined);
  try {
    return { prepared: await inSpan('role.prepare', {}, () => PREPARERS[input.role](input, repo)), backup };
  } catch (error) {
    await backup.catch(() => undefined);
    throw error;
  }
}

async function runPreparedSession(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  preparedSession: PreparedSession,
  backup: Promise<void>,
): Promise<RoleFinish & { agent: AgentResult }> {
  const sessionId = `${input.runId}-${input.session}`;
  const context = preparedSession.context ?? DEFAULT_CONTEXT[input.role];
  const ending: LoopEnding = {};
  // A backup that fails ends the session at once (its request aborted, its tools refused), as it did before it began.
  const backupFailed = new AbortController();
  backup.catch((error: unknown) => backupFailed.abort(error));
  const signal = input.signal ? AbortSignal.any([input.signal, backupFailed.signal]) : backupFailed.signal;
  try {
    const agent = await runAgent({
      sessionId,
      provider: input.provider,
      system: preparedSession.system,
      firstMessage: preparedSession.firstMessage,
      tools: afterBackup(preparedSession.tools, backup),
      toolContext: {
        workspace: repo.dir,
        protectedPaths: preparedSession.protectedPaths,
        ...(preparedSession.unreadablePaths ? { unreadablePaths: preparedSession.unreadablePaths } : {}),
      },
      limits: {
        maxSteps: input.limits.maxSteps,
        maxWallMs: input.limits.maxMinutes * 60_000,
        ...(context.wrapUp ? { wrapUp: context.wrapUp } : {}),
      },
      hooks: withBudgetHook(input, preparedSession, context, ending),
      contextBudget: {
        elidableTools:
          context.elidableTools ??
          preparedSession.tools.map((tool) => tool.name).filter((name) => name.startsWith('browser_')),
      },
      ...(input.secrets ? { secrets: input.secrets } : {}),
      sink: (event: AgentEvent) => input.sink?.(event),
      transcript: new TranscriptWriter(
        sessionTranscriptPath(input.dataDir, input.runId, input.session),
        input.secrets,
      ),
      signal,
      ...(input.prices ? { prices: input.prices } : {}),
      ...(input.clock ? { clock: input.clock } : {}),
    });
    await untilBackedUp(backup, signal);
    const finished = await inSpan('role.finish', {}, () =>
      preparedSession.finish(agent, agent.outcome === 'ended_by_hook' ? ending : {}),
    );
    return { ...finished, agent };
  } finally {
    await preparedSession
      .release?.()
      .catch((error) => log.warn({ err: error }, 'releasing session resources failed'));
  }
}

/**
 * Budgets first (the orchestrator's `stopReason`, noted in `ending`: the run stopped the session), then the
 * context window, then the role's own turn hook. The window is measured from the provider's reported usage (the loop's `state.context`): at 80 % the
 * role is told once what to do with the room left, at 95 % the session ends (its work checkpointed).
 */
function withBudgetHook(
  input: RoleSessionInput,
  preparedSession: PreparedSession,
  context: RoleContextPolicy,
  ending: LoopEnding,
): LoopHooks {
  let told = false;
  return {
    ...preparedSession.hooks,
    beforeTurn: async (state) => {
      const reason = await input.stopReason?.(state);
      if (reason) {
        ending.stoppedByRun = reason;
        return { end: reason };
      }
      const { share, usedTokens, windowTokens } = state.context;
      if (share >= CONTEXT_END_AT) {
        return { end: `context window nearly full (about ${usedTokens} of ${windowTokens} tokens)` };
      }
      const own = (await preparedSession.hooks.beforeTurn?.(state)) ?? {};
      if (share < CONTEXT_NOTE_AT || told || own.end) return own;
      told = true;
      return { ...own, note: own.note ? `${own.note}\n${context.nearFullNote}` : context.nearFullNote };
    },
  };
}

async function checkIntegrity(
  input: RoleSessionInput,
  repo: WorkspaceRepo,
  startCommit: string,
  preparedSession: PreparedSession | undefined,
): Promise<IntegrityViolation[]> {
  const violations: IntegrityViolation[] = [];
  const history = await verifyDescendsFrom(repo, startCommit, {
    branch: input.branch ?? 'main',
    backupDir: repoBackupDir(input.dataDir, input.runId, input.lane),
    label: `${input.runId}-${input.session}`,
  });
  if (!history.ok) violations.push(history.violation);
  if (preparedSession && !preparedSession.featureListRules.mayCreate) {
    const guard = await guardFeatureList(repo, startCommit, {
      mayChangePasses: preparedSession.featureListRules.mayChangePasses,
      runId: input.runId,
      session: input.session,
    });
    violations.push(...guard.violations);
  }
  for (const violation of violations) input.onNotice?.({ type: 'integrity.violation', violation });
  return violations;
}
