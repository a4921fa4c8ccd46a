import type { PriceTable } from './cost.js';
import type { EventSink } from './events.js';
import type { LoopDetectionOptions } from './loop-detection.js';
import type { Message, ModelProvider, ProviderFailure, ToolCallBlock, Usage } from './messages.js';
import type { Tool, ToolContext, ToolOutput } from './tool.js';
import type { TranscriptWriter } from './transcript.js';

/** How full the context window is, from the provider's reported usage (estimated until the first reply). */
export interface ContextUse {
  /** Tokens the next request is expected to carry. */
  usedTokens: number;
  /** The model's context window. */
  windowTokens: number;
  /** usedTokens / windowTokens. */
  share: number;
}

/** Where a session stands, as hooks see it. */
export interface LoopState {
  sessionId: string;
  step: number;
  elapsedMs: number;
  usage: Usage;
  costUsd: number | null;
  messages: readonly Message[];
  context: ContextUse;
}

/** A hook's answer before a tool runs. */
export type ToolDecision = { allow: true } | { allow: false; reason: string };
/** A hook's answer when the model wants to stop: let it, or send it back with a message. */
export type StopDecision = { stop: true } | { stop: false; message: string };
/** A hook's answer before each model request: add a note to the next message, or end the session. */
export interface TurnDecision {
  note?: string;
  end?: string;
  /**
   * The session's work is complete (an evaluator's last verdict is in): stop as if the model had stopped, through
   * the `beforeStop` checks, without spending a request on the model saying so.
   */
  done?: boolean;
}

/** Points where the caller (a role) steers the loop without knowing its insides. */
export interface LoopHooks {
  /** Policy check before a tool runs; a denial reaches the model as the tool's error result. */
  beforeToolCall?(call: ToolCallBlock, state: LoopState): ToolDecision | Promise<ToolDecision>;
  /** Observes a finished tool call (e.g. to catch a submitted verdict). */
  afterToolCall?(call: ToolCallBlock, output: ToolOutput, state: LoopState): void | Promise<void>;
  /** Completion checks when the model stops calling tools; may send it back a bounded number of times. */
  beforeStop?(state: LoopState): StopDecision | Promise<StopDecision>;
  /** Before each model request: budgets crossed mid-session end the session here. */
  beforeTurn?(state: LoopState): TurnDecision | Promise<TurnDecision>;
}

/** Limits of one session. */
export interface AgentLimits {
  /** Model requests at most. */
  maxSteps: number;
  /** Wall-clock time at most, in ms; tools in flight are aborted when it passes. */
  maxWallMs: number;
  /** Output tokens per model reply. Default: the model's settings, else 8,192 (lowered when the window is nearly full). */
  maxOutputTokens?: number;
  /** How often `beforeStop` may send the model back. Default 3. */
  maxStopReturns?: number;
  /** Share of steps or time after which the model is reminded to wrap up. Default 0.8. */
  reminderAt?: number;
  /** What the reminder asks for after "Wrap up now: ". Default "commit your work and append a progress note." */
  wrapUp?: string;
}

/** Retries of transient and overloaded provider failures (core/retry.ts). */
export interface RetryOptions {
  /** Extra attempts after a `retryable` or `overloaded` failure. Default 2. */
  maxRetries?: number;
  /** First back-off delay in ms, doubled each time (with jitter). Default 1,000. */
  baseDelayMs?: number;
  /** Longest wait; a longer retry-after ends the session instead. Default 60,000. */
  maxDelayMs?: number;
  /** Jitter source in [0, 1), injectable for tests. */
  random?: () => number;
}

/**
 * Keeping a session inside its context window. Tool results of the `elidable` tools (e.g. browser
 * snapshots, which go stale with every action) are replaced by a short note once the context passes
 * `elideAt`, all but the last `keepLast` at once, so the prefix changes rarely and stays cacheable.
 */
export interface ContextBudgetOptions {
  /** Names of tools whose old results may be elided. */
  elidableTools?: readonly string[];
  /** Share of the window after which old results are elided. Default 0.5. */
  elideAt?: number;
  /** Results of elidable tools kept whole. Default 2. */
  keepLast?: number;
}

/** Everything a session of the loop needs, passed explicitly. */
export interface RunAgentOptions {
  sessionId: string;
  provider: ModelProvider;
  system: string;
  firstMessage: string;
  tools: readonly Tool[];
  toolContext: Omit<ToolContext, 'signal'>;
  limits: AgentLimits;
  hooks?: LoopHooks;
  sink?: EventSink;
  transcript?: TranscriptWriter;
  signal?: AbortSignal;
  prices?: PriceTable;
  retry?: RetryOptions;
  contextBudget?: ContextBudgetOptions;
  /** Secret values to keep out of everything sent to the model (plain and base64), replaced on entry. */
  secrets?: readonly string[];
  loopDetection?: LoopDetectionOptions;
  toolOutputLimitBytes?: number;
  /** Milliseconds since some epoch; injectable for tests. */
  clock?: () => number;
  /** Waits `ms`; injectable so tests of back-off need not sleep. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** How a session of the loop ended. */
export type AgentOutcome =
  | 'completed'
  | 'step_limit'
  | 'time_limit'
  | 'aborted'
  | 'ended_by_hook'
  | 'rate_limited'
  | 'context_overflow'
  | 'provider_error'
  /** The model declined to go on (stop reason `refusal`, a `refusal` field or a content filter). */
  | 'refused'
  /** Replies kept being cut at the output limit. */
  | 'output_truncated';

/** The record of a finished session of the loop. */
export interface AgentResult {
  outcome: AgentOutcome;
  reason?: string;
  failure?: ProviderFailure;
  messages: Message[];
  steps: number;
  usage: Usage;
  /** `null` when the model's price is unknown. */
  costUsd: number | null;
  durationMs: number;
  /** The model's last text, for summaries. */
  lastText: string;
}
