/**
 * The planner role: a short idea becomes a spec, before any run exists. The planner gets no file tools and no
 * `bash` — only the harness's `ask_user` (interactive mode) and `submit_spec` — so "writes nothing but the spec"
 * holds by construction: the harness validates what it submits and decides where the spec is saved.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { PriceTable } from '../agent/cost.js';
import type { EventSink } from '../agent/events.js';
import { type RunAgentOptions, runAgent } from '../agent/loop.js';
import type { ModelProvider } from '../agent/messages.js';
import { TranscriptWriter } from '../agent/transcript.js';
import { InputError, NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { planDataDir, planTranscriptPath } from '../core/paths.js';
import { PlannerExchange } from '../handoff/spec-origin.js';
import { SPEC_SECTIONS } from './planner-spec.js';
import {
  type AskUser,
  createAskUserTool,
  createSubmitSpecTool,
  type PlannerBounds,
  PlannerRecord,
} from './planner-tools.js';
import { rolePrompt } from './prompt-files.js';
import { type Submissions, submissionFailure, submissionHooks } from './submission-session.js';

const log = moduleLogger('roles/planner');

/** The planner as data: its bounds and limits (the prompt is `roles/prompts/planner.md`). */
export const PLANNER_ROLE = {
  bounds: { maxQuestions: 5, maxAskRounds: 2, maxSubmitAttempts: 3 } satisfies PlannerBounds,
  /** Model requests and wall-clock minutes (time spent waiting for the user's answers counts). */
  limits: { maxSteps: 12, maxMinutes: 30 },
  /** A whole spec is one tool call: room for a long one. */
  maxOutputTokens: 16_000,
  /** Times a model that stops without a spec is sent back. */
  maxStopReturns: 2,
  /** Longest prompt accepted, in characters: an idea, not a spec. */
  maxPromptChars: 8_000,
} as const;

/** What the planner left behind, saved as `<data>/plans/<plan>/plan.json` (the spec beside it, `spec.md`). */
export const PlanRecord = z.object({
  planId: z.string(),
  prompt: z.string(),
  model: z.string(),
  interactive: z.boolean(),
  outcome: z.enum(['accepted', 'failed']),
  reason: z.string().optional(),
  exchanges: z.array(PlannerExchange),
  refusals: z.array(z.array(z.string())),
  steps: z.number(),
  costUsd: z.number().nullable(),
  startedAt: z.string(),
  durationMs: z.number(),
  transcript: z.string(),
});
export type PlanRecord = z.infer<typeof PlanRecord>;

/** A planner session that produced a spec. */
export interface PlannerResult extends PlanRecord {
  outcome: 'accepted';
  /** The accepted spec, markdown, ending in a newline. */
  spec: string;
}

/** The planner ended without an accepted spec. Carries the record (cost, refusals) of the failed session. */
export class PlannerFailedError extends NightshiftError {
  constructor(
    readonly record: PlanRecord,
    hint: string,
  ) {
    super('PLANNER_FAILED', `The planner produced no spec: ${record.reason}`, { hint, exitCode: 1 });
  }
}

/** Everything one planner session needs, passed explicitly. */
export interface PlannerInput {
  planId: string;
  /** The user's idea. */
  prompt: string;
  provider: ModelProvider;
  prices?: PriceTable;
  /** The data dir: the transcript, the record and the spec go under `plans/<plan>/`. */
  dataDir: string;
  /** Interactive mode: how questions reach the user. Without it `ask_user` is not offered at all. */
  ask?: AskUser;
  limits?: Partial<{ maxSteps: number; maxMinutes: number }>;
  bounds?: Partial<PlannerBounds>;
  signal?: AbortSignal;
  sink?: EventSink;
  /** Secret values to redact from the transcript. */
  secrets?: readonly string[];
  clock?: () => number;
}

/** A fresh plan id: `p-` then time and randomness, like run ids. */
export function newPlanId(now: Date = new Date()): string {
  return `p-${now.getTime().toString(36)}${randomBytes(3).toString('hex')}`;
}

/** The prompt, trimmed; an InputError when it is empty or too long to be an idea. */
export function checkPlannerPrompt(prompt: string): string {
  const trimmed = prompt.trim();
  if (trimmed === '') {
    throw new InputError('PROMPT_EMPTY', 'The prompt is empty.', {
      hint: 'Describe the application in a few sentences, e.g. nightshift plan "a recipe box for a family".',
    });
  }
  if (trimmed.length > PLANNER_ROLE.maxPromptChars) {
    throw new InputError(
      'PROMPT_TOO_LONG',
      `The prompt is ${trimmed.length} characters; the planner takes at most ${PLANNER_ROLE.maxPromptChars}.`,
      { hint: 'That is already a spec: save it as a file and run `nightshift run <spec>`.' },
    );
  }
  return trimmed;
}

/** The planner's first message: the idea verbatim, whether questions are possible, the budget. */
export function plannerMessage(input: {
  prompt: string;
  interactive: boolean;
  bounds: PlannerBounds;
  maxSteps: number;
}): string {
  const mode = input.interactive
    ? `Interactive: the user is here. You may ask up to ${input.bounds.maxQuestions} short questions with ask_user (at most ${input.bounds.maxAskRounds} call(s)) before you write — or none, when the idea is clear.`
    : 'Unattended: nobody can answer questions. Decide yourself and state the assumptions that matter in the spec.';
  return [
    '# The idea',
    input.prompt,
    '## Mode',
    mode,
    '## Your output',
    `One submit_spec call with the whole spec: a "# <product name>" title, then the sections ${SPEC_SECTIONS.map((section) => `"## ${section.heading}"`).join(', ')}. You have ${input.maxSteps} model requests in all.`,
  ].join('\n\n');
}

/** How the planner's session talks about its spec (roles/submission-session.ts). */
function plannerWords(bounds: PlannerBounds, maxSteps: number) {
  return {
    noun: 'spec',
    maxRefusals: bounds.maxSubmitAttempts,
    maxSteps,
    lastCall: 'Only two model requests are left: call submit_spec with the whole spec now.',
    nothingSubmitted:
      'Nothing was submitted. Call submit_spec with the whole spec (the title and every required section); text replies are not read.',
    activity: 'planning',
    otherModel: 'choose another model with --model',
  };
}

/** The record as the submission hooks see it. */
function submissionsOf(record: PlannerRecord): Submissions {
  return { accepted: () => record.spec !== undefined, refusals: record.refusals };
}

interface SessionParts {
  prompt: string;
  bounds: PlannerBounds;
  limits: { maxSteps: number; maxMinutes: number };
  record: PlannerRecord;
  /** The plan's directory in the data dir. */
  dir: string;
  transcript: string;
}

/** The loop's options for a planner session: the planner's two tools at most, its hooks and limits. */
function agentOptions(input: PlannerInput, parts: SessionParts): RunAgentOptions {
  const { bounds, limits, record } = parts;
  return {
    sessionId: input.planId,
    provider: input.provider,
    system: rolePrompt('planner'),
    firstMessage: plannerMessage({
      prompt: parts.prompt,
      interactive: Boolean(input.ask),
      bounds,
      maxSteps: limits.maxSteps,
    }),
    tools: [
      ...(input.ask ? [createAskUserTool(record, input.ask, bounds)] : []),
      createSubmitSpecTool(record, bounds),
    ],
    // No tool touches the file system; the context still needs a root, and `.` protects all of it.
    toolContext: { workspace: parts.dir, protectedPaths: ['.'] },
    limits: {
      maxSteps: limits.maxSteps,
      maxWallMs: limits.maxMinutes * 60_000,
      maxOutputTokens: PLANNER_ROLE.maxOutputTokens,
      maxStopReturns: PLANNER_ROLE.maxStopReturns,
      // The loop's generic reminders talk about commits; the planner's own note (beforeTurn) replaces them.
      reminderAt: 1,
    },
    hooks: submissionHooks(submissionsOf(record), plannerWords(bounds, limits.maxSteps)),
    transcript: new TranscriptWriter(parts.transcript, input.secrets),
    ...(input.sink ? { sink: input.sink } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.prices ? { prices: input.prices } : {}),
    ...(input.clock ? { clock: input.clock } : {}),
  };
}

/**
 * Runs one planner session through the agent loop and returns the accepted spec, or throws
 * {@link PlannerFailedError} naming why there is none. The transcript, `plan.json` and the accepted
 * `spec.md` are kept under `<data>/plans/<plan>/` either way.
 */
export async function runPlanner(input: PlannerInput): Promise<PlannerResult> {
  const startedAt = new Date((input.clock ?? Date.now)()).toISOString();
  const parts: SessionParts = {
    prompt: checkPlannerPrompt(input.prompt),
    bounds: { ...PLANNER_ROLE.bounds, ...input.bounds },
    limits: { ...PLANNER_ROLE.limits, ...input.limits },
    record: new PlannerRecord(),
    dir: planDataDir(input.dataDir, input.planId),
    transcript: planTranscriptPath(input.dataDir, input.planId),
  };
  await mkdir(parts.dir, { recursive: true });
  const agent = await runAgent(agentOptions(input, parts));
  const { record, dir } = parts;
  const base = {
    planId: input.planId,
    prompt: parts.prompt,
    model: input.provider.id,
    interactive: Boolean(input.ask),
    exchanges: record.exchanges,
    refusals: record.refusals,
    steps: agent.steps,
    costUsd: agent.costUsd,
    startedAt,
    durationMs: agent.durationMs,
    transcript: parts.transcript,
  };
  if (record.spec === undefined) {
    const words = plannerWords(parts.bounds, parts.limits.maxSteps);
    const failure = submissionFailure(agent, submissionsOf(record), words);
    const failed: PlanRecord = { ...base, outcome: 'failed', reason: failure.reason };
    await writeFile(path.join(dir, 'plan.json'), `${JSON.stringify(failed, null, 2)}\n`);
    log.warn({ planId: input.planId, outcome: agent.outcome, reason: failure.reason }, 'planner failed');
    throw new PlannerFailedError(failed, failure.hint);
  }
  const saved: PlanRecord = { ...base, outcome: 'accepted' };
  await writeFile(path.join(dir, 'spec.md'), record.spec);
  await writeFile(path.join(dir, 'plan.json'), `${JSON.stringify(saved, null, 2)}\n`);
  log.info({ planId: input.planId, steps: agent.steps, costUsd: agent.costUsd }, 'planner spec accepted');
  return { ...saved, outcome: 'accepted', spec: record.spec };
}
