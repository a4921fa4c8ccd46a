import { z } from 'zod';

const UsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
});

const base = { at: z.string(), sessionId: z.string() };

/**
 * Everything the agent loop reports, one discriminated union. Higher layers extend it with their own
 * events (run, verdict, integrity) in `orchestrator/events.ts`; this layer knows nothing of them.
 */
export const AgentEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session.started'), ...base, model: z.string(), tools: z.array(z.string()) }),
  z.object({
    type: z.literal('model.request'),
    ...base,
    step: z.number(),
    messages: z.number(),
    bytes: z.number(),
  }),
  z.object({
    type: z.literal('model.usage'),
    ...base,
    step: z.number(),
    usage: UsageSchema,
    costUsd: z.number().nullable(),
    durationMs: z.number(),
  }),
  z.object({
    type: z.literal('model.error'),
    ...base,
    step: z.number(),
    kind: z.string(),
    message: z.string(),
    retryAfterMs: z.number().optional(),
    willRetry: z.boolean(),
    /** 1 for the first attempt of this request. */
    attempt: z.number().optional(),
    /** The wait before the next attempt. */
    delayMs: z.number().optional(),
  }),
  /** A reply cut at the output limit: its tool calls were not run, the model was told how to go on. */
  z.object({
    type: z.literal('model.truncated'),
    ...base,
    step: z.number(),
    maxTokens: z.number(),
    toolCalls: z.number(),
  }),
  /** An empty reply answered with one nudge: reasoning used up the output, or a harness note preceded it. */
  z.object({
    type: z.literal('model.nudged'),
    ...base,
    step: z.number(),
    reason: z.enum(['reasoning_only', 'empty_after_note']),
  }),
  /** The model declined; the session ends `refused`. */
  z.object({ type: z.literal('model.refused'), ...base, step: z.number(), message: z.string() }),
  /** The model rejected images: they are replaced by a text note for the rest of the session. */
  z.object({ type: z.literal('model.images_dropped'), ...base, step: z.number(), message: z.string() }),
  /** Old tool results (e.g. browser snapshots) replaced by a short note to keep the context in its window. */
  z.object({
    type: z.literal('context.elided'),
    ...base,
    step: z.number(),
    results: z.number(),
    bytes: z.number(),
    usedTokens: z.number(),
    windowTokens: z.number(),
  }),
  /** Secret values found in outgoing text and replaced before it reached the model (never the value). */
  z.object({
    type: z.literal('secret.redacted'),
    ...base,
    step: z.number(),
    where: z.string(),
    count: z.number(),
  }),
  z.object({ type: z.literal('text.delta'), ...base, text: z.string() }),
  z.object({ type: z.literal('text'), ...base, step: z.number(), text: z.string() }),
  z.object({
    type: z.literal('tool.started'),
    ...base,
    step: z.number(),
    callId: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  }),
  z.object({
    type: z.literal('tool.ended'),
    ...base,
    step: z.number(),
    callId: z.string(),
    name: z.string(),
    isError: z.boolean(),
    durationMs: z.number(),
    outputBytes: z.number(),
    truncated: z.boolean(),
  }),
  z.object({
    type: z.literal('tool.denied'),
    ...base,
    step: z.number(),
    callId: z.string(),
    name: z.string(),
    reason: z.string(),
  }),
  z.object({
    type: z.literal('loop.detected'),
    ...base,
    step: z.number(),
    kind: z.string(),
    detail: z.string(),
  }),
  z.object({ type: z.literal('budget.reminder'), ...base, step: z.number(), message: z.string() }),
  /**
   * A destination refused: by a box's egress proxy (network policy; `bash` or `app`), or by the evaluator's
   * browser gate (`browser`: a page asked for something other than the app's origin).
   */
  z.object({
    type: z.literal('sandbox.egress_refused'),
    ...base,
    source: z.enum(['bash', 'app', 'browser']),
    host: z.string(),
    port: z.number(),
    reason: z.string(),
  }),
  z.object({
    type: z.literal('stop.blocked'),
    ...base,
    step: z.number(),
    reason: z.string(),
    attempt: z.number(),
  }),
  z.object({
    type: z.literal('session.ended'),
    ...base,
    outcome: z.string(),
    steps: z.number(),
    usage: UsageSchema,
    costUsd: z.number().nullable(),
    durationMs: z.number(),
    error: z.string().optional(),
  }),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;

/** Receives events as they happen; must not throw (a throwing sink is logged and ignored). */
export type EventSink = (event: AgentEvent) => void;
