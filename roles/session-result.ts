import { z } from 'zod';
import { AppStartFailure, IntegrityViolation, VerdictRecord } from '../handoff/formats.js';

/** The roles a session can play. */
export const RoleName = z.enum(['initializer', 'generator', 'evaluator']);
export type RoleName = z.infer<typeof RoleName>;

/**
 * How a session ended:
 * - `completed`: the role's completion checks passed;
 * - `checkpointed`: ended early (limit, budget, shutdown) with its work committed; the next session continues;
 * - `failed`: the role's output was invalid past the retry limit (e.g. an initializer's feature list);
 * - `blocked`: the session could not do its job for a reason outside the product (app did not start, browser crashed);
 * - `rate_limited`: the provider kept refusing; the worker pauses the queue;
 * - `provider_error`: the provider failed for good (bad key, unknown model, no credit, errors past the retries);
 * - `refused`: the model declined to go on (a refusal stop reason or content filter);
 * - `aborted`: stopped from outside before it could checkpoint (a shutdown, a lost lock), or an evaluation the run
 *   stopped (a pause, a cancel, a budget): interrupted, not judged — it records only the verdicts it had submitted.
 */
export const SessionOutcome = z.enum([
  'completed',
  'checkpointed',
  'failed',
  'blocked',
  'rate_limited',
  'provider_error',
  'refused',
  'aborted',
]);
export type SessionOutcome = z.infer<typeof SessionOutcome>;

/** One rule a session broke (defined in handoff/formats.ts, re-exported here for the roles layer). */
export { IntegrityViolation };

const UsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
});

/** What a role session reports back to the orchestrator (stored in the run's session history). */
export const SessionResult = z.object({
  role: RoleName,
  featureIds: z.array(z.string()),
  outcome: SessionOutcome,
  reason: z.string().optional(),
  model: z.string(),
  startCommit: z.string(),
  endCommit: z.string(),
  commits: z.array(z.string()),
  usage: UsageSchema,
  costUsd: z.number().nullable(),
  steps: z.number(),
  startedAt: z.string(),
  durationMs: z.number(),
  violations: z.array(IntegrityViolation),
  verdicts: z.array(VerdictRecord),
  retryAfterMs: z.number().optional(),
  /** The provider's failure that ended the session (kind and message with the fix), if one did. */
  providerFailure: z.object({ kind: z.string(), message: z.string() }).optional(),
  /** The app did not start (an evaluation, or the harness's start after the initializer): exit code, log tail. */
  appStart: AppStartFailure.optional(),
  /** The id of the question the session asked a person (`ask_human`): its feature waits for the answer. */
  askedQuestion: z.string().optional(),
});
export type SessionResult = z.infer<typeof SessionResult>;
