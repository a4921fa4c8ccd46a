import { z } from 'zod';
import { VerdictRecord } from '../handoff/formats.js';

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
 * - `provider_error`: a fatal provider error (bad key, unknown model);
 * - `aborted`: cancelled from outside before it could checkpoint.
 */
export const SessionOutcome = z.enum([
  'completed',
  'checkpointed',
  'failed',
  'blocked',
  'rate_limited',
  'provider_error',
  'aborted',
]);
export type SessionOutcome = z.infer<typeof SessionOutcome>;

/** One rule a session broke in `feature_list.json` (or git history), found and reverted by the harness. */
export const IntegrityViolation = z.object({
  kind: z.enum([
    'feature_edited',
    'feature_removed',
    'feature_added',
    'features_reordered',
    'passes_changed',
    'feature_list_invalid',
    'history_rewritten',
    'protected_path_changed',
  ]),
  featureId: z.string().optional(),
  detail: z.string(),
});
export type IntegrityViolation = z.infer<typeof IntegrityViolation>;

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
});
export type SessionResult = z.infer<typeof SessionResult>;
