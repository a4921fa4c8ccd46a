import { z } from 'zod';

/** A feature id as the harness assigns it: `F-001`, `F-002`, … */
export const FeatureId = z.string().regex(/^F-\d{3,}$/, 'feature ids look like F-001');
export type FeatureId = z.infer<typeof FeatureId>;

/**
 * One entry of `feature_list.json`. Compatible with Anthropic's autonomous-coding quickstart
 * (`category`, `description`, `steps`, `passes`); unknown fields are kept as they are.
 */
export const Feature = z.looseObject({
  id: FeatureId,
  category: z.string().min(1),
  description: z.string().min(1),
  steps: z.array(z.string().min(1)).min(1, 'each feature needs at least one step'),
  passes: z.boolean(),
  /** Optional (not in the quickstart format): ids of features that must pass before this one is worked on. */
  depends_on: z.array(FeatureId).optional(),
});
export type Feature = z.infer<typeof Feature>;

/** A feature as it may be found on disk, before the harness has assigned ids. */
export const FeatureOnDisk = Feature.extend({ id: FeatureId.optional() });
export type FeatureOnDisk = z.infer<typeof FeatureOnDisk>;

/** `feature_list.json` with ids assigned. */
export const FeatureList = z.array(Feature);
export type FeatureList = z.infer<typeof FeatureList>;

/** The three verdicts; a missing verdict is `blocked`, never `pass`. */
export const VerdictValue = z.enum(['pass', 'fail', 'blocked']);
export type VerdictValue = z.infer<typeof VerdictValue>;

/** One checked step of a verdict. */
export const VerdictStep = z.object({ step: z.string(), ok: z.boolean(), evidence: z.string() });
export type VerdictStep = z.infer<typeof VerdictStep>;

/** What the evaluator submits through `submit_verdict`. */
export const SubmittedVerdict = z.object({
  feature_id: FeatureId,
  verdict: VerdictValue,
  steps: z.array(VerdictStep),
  issues: z.array(z.string()),
});
export type SubmittedVerdict = z.infer<typeof SubmittedVerdict>;

/** Why the harness refused a submitted pass (evaluation/grounding.ts): attempt 1, 2… within one evaluation. */
export const GroundingFailure = z.object({
  attempt: z.number().int().positive(),
  problems: z.array(z.string()).min(1),
});
export type GroundingFailure = z.infer<typeof GroundingFailure>;

/**
 * Why the app did not start for an evaluation (or after the initializer): init.sh's exit code (null when it
 * was still running at the readiness timeout), the last lines of the app log, and that log's path (data dir).
 */
export const AppStartFailure = z.object({
  exitCode: z.number().int().nullable(),
  logTail: z.array(z.string()),
  /** The session's app log, relative to the data dir (the model cannot read it: the tail is what it gets). */
  logFile: z.string(),
});
export type AppStartFailure = z.infer<typeof AppStartFailure>;

/** One line of `.nightshift/verdicts.jsonl`: every evaluation, as applied by the harness. */
export const VerdictRecord = z.object({
  featureId: FeatureId,
  verdict: VerdictValue,
  steps: z.array(VerdictStep),
  issues: z.array(z.string()),
  /** Why the harness recorded `blocked` when it did (no verdict, app did not start, browser crashed…). */
  reason: z.string().optional(),
  mode: z.enum(['evaluate', 'regression']),
  runId: z.string(),
  session: z.number().int().nonnegative(),
  at: z.string(),
  /** Evidence files (screenshots, trace) relative to the data dir. */
  evidence: z.array(z.string()),
  /** Passes of this evaluation the harness found ungrounded (sent back, or recorded as blocked). */
  ungrounded: z.array(GroundingFailure).optional(),
  /** A pass kept without a recorded check: why nothing replayable was recorded (sweeps must ask a model for it). */
  unrecordable: z.string().optional(),
  /** Set on a `blocked` verdict recorded because the app did not start: the generator gets it as feedback. */
  appStart: AppStartFailure.optional(),
});
export type VerdictRecord = z.infer<typeof VerdictRecord>;

/** Workspace-relative paths of the files the harness owns. */
export const WORKSPACE_FILES = {
  featureList: 'feature_list.json',
  progress: 'progress.md',
  quickstartProgress: 'claude-progress.txt',
  initScript: 'init.sh',
  gitignore: '.gitignore',
  harnessDir: '.nightshift',
  feedbackDir: '.nightshift/feedback',
  verdicts: '.nightshift/verdicts.jsonl',
  /** Why the app did not start after the last initializer session (read into the next one's brief). */
  appStartNote: '.nightshift/app-start.md',
} as const;

/** One rule a session broke in `feature_list.json`, git history or `.git` itself, found and reverted by the harness. */
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
    /** `.git/config`, `info/`, `hooks/` or another guarded path of `.git` differed from the known-good record. */
    'git_config_tampered',
  ]),
  featureId: z.string().optional(),
  detail: z.string(),
});
export type IntegrityViolation = z.infer<typeof IntegrityViolation>;
