import type { AgentResult, LoopHooks } from '../agent/loop.js';
import type { Tool } from '../agent/tool.js';
import type { AppStartFailure, IntegrityViolation, VerdictRecord } from '../handoff/formats.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import type { SessionOutcome } from './session-result.js';
import type { RoleSessionInput } from './types.js';

/** What a role's `finish` decides after the loop ended. */
export interface RoleFinish {
  outcome: SessionOutcome;
  reason?: string;
  verdicts: VerdictRecord[];
  /** What the role's closing found and put back itself (e.g. a protected path changed in the leftovers). */
  violations?: IntegrityViolation[];
  /** The app did not start (evaluator: for the evaluation; initializer: the harness's check after it). */
  appStart?: AppStartFailure;
  /** The question the session asked a person (`ask_human`); it ended to wait for the answer. */
  askedQuestion?: string;
}

/** One session of one role, prepared: what the loop runs and how the role closes the session. */
export interface PreparedSession {
  system: string;
  firstMessage: string;
  tools: Tool[];
  /** Workspace-relative paths the file tools may not write. */
  protectedPaths: string[];
  /** Workspace paths the model may not even read, with the reason it is told (e.g. the evaluator and progress.md). */
  unreadablePaths?: { path: string; reason: string }[];
  hooks: LoopHooks;
  /** Role-specific closing: validation, WIP commit, verdicts. Runs before the integrity checks. */
  finish(result: AgentResult, ending?: LoopEnding): Promise<RoleFinish>;
  /** Releases what `prepare` acquired (app, browser context); always called. */
  release?(): Promise<void>;
  /** Whether this role may change `passes` (none may: only verdict application, after the guard). */
  featureListRules: { mayChangePasses: boolean; mayCreate: boolean };
  /** How the session keeps inside the model's window (defaults per role in roles/session.ts). */
  context?: RoleContextPolicy;
}

/** What a role does as its context window fills. */
export interface RoleContextPolicy {
  /** Told once at 80 % of the window: what to do with the room left (checkpoint, submit verdicts). */
  nearFullNote: string;
  /** What the step and time reminders ask for (after "Wrap up now: "); default: commit and a progress note. */
  wrapUp?: string;
  /** Tools whose old results go stale and may be elided (default: the browser tools among the role's). */
  elidableTools?: readonly string[];
}

/** What ended the loop from outside the role, when something did. */
export interface LoopEnding {
  /**
   * The run stopped the session (`stopReason`: paused from the CLI, the dashboard or a Ctrl-C, cancelled, a budget
   * or deadline reached): the role's work was interrupted, not finished. An evaluation judges nothing it had not
   * judged yet.
   */
  stoppedByRun?: string;
}

/** Prepares one session of a role: what the loop runs, or the session's end when it cannot start. */
export type SessionPreparer = (
  input: RoleSessionInput,
  repo: WorkspaceRepo,
) => Promise<PreparedSession | RoleFinish>;

/**
 * Maps how the loop ended to a session outcome; undefined when it completed. A limit reached (steps, time,
 * context, budget) is `checkpointed` for roles whose work is commits, `blocked` for the evaluator (its check
 * did not run to the end).
 */
export function outcomeOfInterruptedLoop(
  result: AgentResult,
  limitOutcome: 'checkpointed' | 'blocked' = 'checkpointed',
): SessionOutcome | undefined {
  switch (result.outcome) {
    case 'completed':
      return undefined;
    case 'rate_limited':
      return 'rate_limited';
    case 'provider_error':
      return 'provider_error';
    case 'refused':
      return 'refused';
    case 'aborted':
      return 'aborted';
    default:
      return limitOutcome;
  }
}
