import type { PriceTable } from '../agent/cost.js';
import type { EventSink } from '../agent/events.js';
import type { LoopState } from '../agent/loop.js';
import type { ModelProvider } from '../agent/messages.js';
import type { BrowserSource } from '../evaluation/browser-source.js';
import type { ReplayTally } from '../evaluation/replay-tally.js';
import type { SessionSandbox } from '../evaluation/session-box.js';
import type { FeatureListSync } from '../handoff/feature-list-sync.js';
import type { IntegrityViolation } from '../handoff/formats.js';
import type { Question } from '../handoff/questions.js';
import type { HumanNote } from './human-notes.js';
import type { RoleName } from './session-result.js';

/** Step and time limits of one session. */
export interface SessionLimits {
  /** Model requests at most. */
  maxSteps: number;
  /** Wall-clock minutes at most. */
  maxMinutes: number;
}

/** What the harness reports besides agent events: violations found, checkpoints, ungrounded passes, replays. */
export type HarnessNotice =
  | { type: 'integrity.violation'; violation: IntegrityViolation }
  | { type: 'checkpoint'; sha: string; wip: boolean }
  | { type: 'app.blocked'; reason: string }
  /** A submitted pass the harness found ungrounded; `final`: recorded as blocked (else sent back). */
  | { type: 'verdict.ungrounded'; featureId: string; attempt: number; problems: string[]; final: boolean }
  /** Recorded checks replayed (the evaluator's replay-first sweep, its pass gate): the worker logs them for the metrics. */
  | ({ type: 'check.replayed' } & ReplayTally);

/** Everything one role session needs, passed explicitly (no globals). */
export interface RoleSessionInput {
  role: RoleName;
  runId: string;
  /** The session's number in the run (the job sequence). */
  session: number;
  /** Absolute path of the workspace (a git repository). */
  workspace: string;
  /** The run branch (default `main`); a lane's session: the lane's branch. */
  branch?: string;
  /** Lanes mode: the lane the session works on (its clone keeps its own backup). */
  lane?: number;
  /**
   * The commit the harness has just reset the workspace to, with nothing left over (a lane's or a remote run's
   * clone, synced for this session): the session starts there without reading HEAD and rolling back again.
   */
  startHead?: string;
  /** Features to work on: one for a generator, one or more for an evaluator, none for the initializer. */
  featureIds: string[];
  /**
   * What a person wrote about the session's features (`nightshift note`, `reopen`, `unblock`), by feature id: shown
   * in the brief of a generator or an evaluator, whichever comes next.
   */
  humanNotes?: Readonly<Record<string, readonly HumanNote[]>>;
  /**
   * What the run store knows that the workspace's `feature_list.json` may not yet (features a person added, passing
   * ones reopened): applied, as the harness's commit, before the session starts.
   */
  featureListSync?: FeatureListSync;
  /** `regression` re-checks features that already pass (evaluator only). */
  mode?: 'evaluate' | 'regression';
  provider: ModelProvider;
  prices?: PriceTable;
  limits: SessionLimits;
  /** The data dir: transcripts, evidence, backups. */
  dataDir: string;
  /**
   * The box of this session's workspace-controlled processes (bash; for the evaluator, the app): bubblewrap
   * choice, network policy, extra hosts, hidden paths. The evaluator's `network` is the app's.
   */
  sandbox?: SessionSandbox;
  /** Initializer: the wanted number of features. */
  featureCount?: { min?: number; max?: number };
  /** Evaluator: the shared browser. */
  browser?: BrowserSource;
  /**
   * How long the app may take to answer after `init.sh` starts (evaluator, replays, the start after the
   * initializer). Default 60 s here; runs set it from `app.readyTimeoutSeconds` (default 180 s).
   */
  appReadyTimeoutMs?: number;
  /** Fresh app copies get the run's kept dependencies (default true; runs set it from `app.dependencyCache`). */
  appDependencyCache?: boolean;
  /**
   * Initializer: the harness starts the app once after the session (a failure ends it `failed`, the log kept for
   * the next one). `sandbox`: the app's box settings (the evaluator's app's), not the initializer's bash.
   */
  startAppAfterInit?: { sandbox?: RoleSessionInput['sandbox'] };
  /** Cancels the session (shutdown, user cancel); the harness still checkpoints. */
  signal?: AbortSignal;
  /** Agent events, as they happen. */
  sink?: EventSink;
  /** Harness notices (violations, checkpoints). */
  onNotice?: (notice: HarnessNotice) => void;
  /** Budgets checked before each turn: a reason ends the session with a checkpoint. */
  stopReason?: (state: LoopState) => string | undefined | Promise<string | undefined>;
  /** Secret values kept out of the transcript and out of everything sent to the model (plain and base64). */
  secrets?: readonly string[];
  /** Milliseconds clock, injectable. */
  clock?: () => number;
  /**
   * Generator, or an evaluator judging a feature (not a regression sweep): records a question for a person (the run
   * keeps it; past the run's cap, none is recorded and the session decides itself). Absent: no `ask_human` tool.
   */
  askHuman?: (request: {
    featureId: string;
    question: string;
    options: string[];
  }) => Promise<{ kind: 'asked'; question: Question } | { kind: 'decide'; reason: string }>;
  /** The run's questions so far: the answered ones on this session's feature go in its brief; all in `.nightshift/questions.md`. */
  questions?: readonly Question[];
}
