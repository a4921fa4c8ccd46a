// Response shapes of the dashboard's JSON API, shared (type-only) by the server and the web UI.
import type { Question } from '../handoff/questions.js';
import type { LaneActivity, LaneMergeView, LanesView } from '../orchestrator/lanes/lane-view.js';
import type { PausedReason, RunStatus, SessionKind, SessionRecord } from '../orchestrator/run/index.js';
import type { HumanNote } from '../roles/human-notes.js';
import type { RoleName } from '../roles/session-result.js';
import type { FeatureCheckView } from './checks-view.js';
import type { RunStory } from './story-schema.js';

/** `GET /api/runs/:id/story`: validated by the zod schema RunStory (dashboard/story-schema.ts). */
export type { FeatureCheckView, LaneActivity, LaneMergeView, LanesView, RunStory };

import type { FeatureStateName } from './feature-state.js';

/** Pass/fail/blocked totals of a run. */
export interface FeatureTotalsView {
  total: number;
  passing: number;
  failing: number;
  blocked: number;
  /** Never evaluated (when the run store counts them apart; the UI otherwise counts them from the features). */
  untested?: number;
}

/** One run as listed and shown in a run page header. */
export interface RunView {
  id: string;
  /** What people call the run: `--name`, else the spec's title. */
  name: string;
  specName: string;
  workspace: string;
  status: RunStatus;
  pausedReason: PausedReason | null;
  detail: string | null;
  createdAt: string;
  startedAt: string | null;
  updatedAt: string;
  finishedAt: string | null;
  features: FeatureTotalsView;
  sessions: number;
  /** Known cost; null when no session has a known price (never $0 for unknown). */
  costUsd: number | null;
  /** Sessions whose model had no known price (not in costUsd). */
  costUnknownSessions: number;
  /** Next scheduled start (a nightly schedule), when one is known. */
  nextScheduledAt: string | null;
  /** Workers connected to the queue while the run wants sessions (null: the run is not active, or unknown). */
  workers: number | null;
  /** An active run with no worker connected: what to do (start one, or work it here), as text; else null. */
  noWorker: string | null;
  /** Questions sessions asked a person (`ask_human`), in the order asked; open while `answer` is null. */
  questions: Question[];
}

/** `GET /api/runs/:id/questions`. */
export interface QuestionsResponse {
  questions: Question[];
}

/** `POST /runs/:id/features`: the feature as added (`{ description }` asked for it). */
export interface AddFeatureResponse {
  feature: { id: string; description: string; steps: string[]; dependsOn: string[] };
}

/** The newest nightly summary of a run. */
export interface NightlySummaryView {
  at: string;
  since: string;
  newlyPassing: string[];
  newlyFailing: string[];
  blocked: string[];
  /** Why each blocked feature is blocked. */
  blockedReasons: Array<{ featureId: string; reason: string }>;
  costUsd: number;
  passing: number;
  total: number;
}

/** `GET /api/runs`. */
export interface RunsResponse {
  runs: RunView[];
}

/** The session in flight. */
export interface RunningSessionView {
  seq: number;
  role: RoleName;
  kind: SessionKind | null;
  featureIds: string[];
  startedAt: string;
  workerId: string;
}

/** The session queued for a worker (role and features unknown when its event has aged out). */
export interface QueuedSessionView {
  seq: number;
  role: RoleName | null;
  kind: SessionKind | null;
  featureIds: string[];
  /** When it was queued. */
  at: string | null;
}

/** What the run is doing now: at most one of the two is set. */
export interface ActivityView {
  running: RunningSessionView | null;
  queued: QueuedSessionView | null;
}

/** `GET /api/runs/:id`. */
export interface RunResponse {
  run: RunView;
  nightlySummary: NightlySummaryView | null;
  activity: ActivityView;
  /**
   * Parallel lanes (config `lanes` > 1; null for a serial run): each busy lane and its step, the merge queue and the
   * newest merge results. Validated by the zod schema LanesView (orchestrator/lanes/lane-view.ts).
   */
  lanes: LanesView | null;
}

/** One feature with its harness state, as the grid needs it (steps are in the feature detail only). */
export interface FeatureView {
  id: string;
  category: string;
  description: string;
  passes: boolean;
  position: number;
  attempts: number;
  blocked: boolean;
  blockedReason: string | null;
  lastVerdict: 'pass' | 'fail' | 'blocked' | null;
  lastVerdictAt: string | null;
}

/** `GET /api/runs/:id/features`. */
export interface FeaturesResponse {
  features: FeatureView[];
}

/** One grid cell: id, index into `categories`, state, failed attempts. */
export type GridRow = [id: string, category: number, state: FeatureStateName, attempts: number];

/** `GET /api/runs/:id/grid`: the feature grid in a compact form (≈ 1/10 of the features payload). */
export interface GridResponse {
  categories: string[];
  /** In list order. */
  features: GridRow[];
}

/** One evidence file of a verdict. */
export interface EvidenceView {
  name: string;
  /** Same-origin URL of the file. */
  url: string;
  kind: 'image' | 'trace' | 'file';
}

/** One evaluation of a feature. */
export interface VerdictHistoryEntry {
  session: number;
  at: string;
  verdict: 'pass' | 'fail' | 'blocked';
  mode: 'evaluate' | 'regression';
  steps: { step: string; ok: boolean; evidence: string }[];
  issues: string[];
  reason: string | null;
  evidence: EvidenceView[];
  /** Passes of this evaluation the harness refused as ungrounded, with what was missing. */
  ungrounded: { attempt: number; problems: string[] }[];
}

/** A feature with its steps. */
export interface FeatureDetailView extends FeatureView {
  steps: string[];
}

/** Whether Retry feature may be used, and why not. */
export interface RetryView {
  allowed: boolean;
  reason: string | null;
}

/** `GET /api/runs/:id/features/:featureId`. */
export interface FeatureDetailResponse {
  feature: FeatureDetailView;
  retry: RetryView;
  /** The latest evaluator feedback (markdown source, shown as text). */
  feedback: string | null;
  /** Newest first. */
  verdicts: VerdictHistoryEntry[];
  /** What people wrote about the feature and which steering actions fit it now (dashboard/steering.ts). */
  steering: SteeringView;
}

/** A feature's notes (oldest first, texts shown as text) and whether note, reopen and unblock may be used. */
export interface SteeringView {
  notes: HumanNote[];
  note: RetryView;
  reopen: RetryView;
  unblock: RetryView;
}

/** `GET /api/runs/:id/sessions`. */
export interface SessionsResponse {
  total: number;
  offset: number;
  limit: number;
  /** Newest first. */
  sessions: SessionRecord[];
}

/** `GET /api/runs/:id/sessions/:seq/transcript`. */
export interface TranscriptResponse {
  seq: number;
  total: number;
  offset: number;
  limit: number;
  /** Transcript lines (see agent/transcript.ts), in order; unreadable lines are `{ kind: 'invalid', raw }`. */
  lines: unknown[];
}

/** One point of the passing-features chart. */
export interface ProgressPoint {
  seq: number;
  at: string;
  passing: number;
}

/** `GET /api/runs/:id/progress`: passing features after each session with verdicts. */
export interface ProgressResponse {
  total: number;
  points: ProgressPoint[];
}

/** Error body of every 4xx/5xx response. */
export interface ErrorResponse {
  error: string;
  message: string;
}

/** Where a plan of the new-run form stands (see dashboard/plan-desk.ts). */
export type PlanState = 'planning' | 'asking' | 'ready' | 'starting' | 'started' | 'failed';

/** `/api/plans/:id`: one planner session of the new-run form. Model text (questions, spec) is plain text. */
export interface PlanView {
  id: string;
  prompt: string;
  model: string;
  state: PlanState;
  /** Grows with every change; `GET /api/plans/:id?after=<version>` waits for a newer one. */
  version: number;
  /** The questions waiting for answers (state `asking`). */
  questions: string[];
  exchanges: Array<{ question: string; answer: string }>;
  /** The planner's spec (from state `ready`). */
  spec: string | null;
  costUsd: number | null;
  error: string | null;
  runId: string | null;
}

/** What the new-run form chooses for the run (and the planner): model, budget, lanes and workspace. */
export interface RunChoice {
  /** `provider:model` for the planner and every role. */
  model: string;
  /** Cost cap of the whole run in USD; null = no cap. */
  budgetUsd: number | null;
  /** Features in flight at once (1 = one at a time). */
  lanes: number;
  /** An absolute directory on the dashboard's machine; null = a new one in the data dir. */
  workspace: string | null;
}

/** One thing wrong with (or worth knowing about) a choice, by field. */
export interface ChoiceNote {
  field: keyof RunChoice;
  message: string;
}

/** `POST /api/plans/check`: whether a run can start with the choice; `problems` stop it, `warnings` do not. */
export interface ChoiceCheckResponse {
  ok: boolean;
  problems: ChoiceNote[];
  warnings: ChoiceNote[];
}

/** `GET /api/plans`: whether this dashboard can plan, the planner's default model and the form's defaults. */
export interface PlanningInfoResponse {
  model: string;
  maxQuestions: number;
  /** The choice a new run gets unless the person changes it (the configured defaults). */
  defaults: RunChoice;
  /** Known models not retired, for the model field's suggestions. */
  models: string[];
}

/** `GET /api/runs/:id/checks`: every feature's recorded check and last replay (none listed for a remote run). */
export interface ChecksResponse {
  local: boolean;
  checks: FeatureCheckView[];
}
