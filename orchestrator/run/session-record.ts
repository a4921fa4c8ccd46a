/** A run's session history: one record per session, as the run store keeps it (split from run-state.ts). */
import { z } from 'zod';
import { VerdictValue } from '../../handoff/formats.js';
import { RoleName, SessionOutcome } from '../../roles/session-result.js';

/** One verdict as summarized in the session history. */
export const SessionVerdict = z.object({
  featureId: z.string(),
  verdict: VerdictValue,
  mode: z.enum(['evaluate', 'regression']),
});
export type SessionVerdict = z.infer<typeof SessionVerdict>;

/** What kind of step a session was (the planner action that queued it). */
export const SessionKind = z.enum(['initialize', 'generate', 'evaluate', 'regress']);
export type SessionKind = z.infer<typeof SessionKind>;

/** One session in a run's history. Fields after `startedAt` are set when its result is recorded. */
export const SessionRecord = z.object({
  seq: z.number().int().nonnegative(),
  jobId: z.string(),
  role: RoleName,
  kind: SessionKind.nullable(),
  featureIds: z.array(z.string()),
  workerId: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  outcome: SessionOutcome.nullable(),
  reason: z.string().nullable(),
  model: z.string().nullable(),
  usage: z
    .object({
      inputTokens: z.number(),
      outputTokens: z.number(),
      cacheReadTokens: z.number(),
      cacheWriteTokens: z.number(),
    })
    .nullable(),
  costUsd: z.number().nullable(),
  durationMs: z.number().nullable(),
  steps: z.number().nullable(),
  startCommit: z.string().nullable(),
  endCommit: z.string().nullable(),
  commits: z.array(z.string()),
  violations: z.number().int().nonnegative(),
  verdicts: z.array(SessionVerdict),
  /** The lane the session worked on (lanes mode), null for the run's own slot and serial runs. */
  lane: z.number().int().positive().nullable().default(null),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

/** What `recordSessionStarted` needs. */
export const SessionStart = z.object({
  seq: z.number().int().positive(),
  jobId: z.string().min(1),
  role: RoleName,
  kind: SessionKind.optional(),
  featureIds: z.array(z.string()),
  workerId: z.string().min(1),
  /** The lane (lanes mode). */
  lane: z.number().int().positive().optional(),
  /** Defaults to now. */
  startedAt: z.string().optional(),
});
export type SessionStart = z.input<typeof SessionStart>;

/** A session record with nothing recorded yet but who started it. */
export function emptySession(
  seq: number,
  jobId: string,
  role: SessionRecord['role'],
  startedAt: string,
): SessionRecord {
  return {
    seq,
    jobId,
    role,
    kind: null,
    featureIds: [],
    workerId: 'unknown',
    startedAt,
    finishedAt: null,
    outcome: null,
    reason: null,
    model: null,
    usage: null,
    costUsd: null,
    durationMs: null,
    steps: null,
    startCommit: null,
    endCommit: null,
    commits: [],
    violations: 0,
    verdicts: [],
    lane: null,
  };
}
