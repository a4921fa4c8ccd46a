/**
 * The feature writer: a person's words (`nightshift add RUN "…"`) become one validated entry of the run's feature
 * list. Like the planner it gets no file tools and no `bash`, only the harness's `submit_feature`, so "adds one entry
 * and nothing else" holds by construction; the harness checks the entry against the list (handoff/feature-entry.ts),
 * sends the problems back a bounded number of times, and decides the id and where the entry goes.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { PriceTable } from '../agent/cost.js';
import type { EventSink } from '../agent/events.js';
import { runAgent } from '../agent/loop.js';
import type { ModelProvider, Usage } from '../agent/messages.js';
import { defineTool, ToolError } from '../agent/tool.js';
import { TranscriptWriter } from '../agent/transcript.js';
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { runDataDir } from '../core/paths.js';
import { NEW_FEATURE_LIMITS, nextFeatureId, validateNewFeature } from '../handoff/feature-entry.js';
import type { Feature, FeatureList } from '../handoff/formats.js';
import { rolePrompt } from './prompt-files.js';
import { type Submissions, submissionFailure, submissionHooks } from './submission-session.js';

const log = moduleLogger('roles/feature-writer');

/** The feature writer as data: its bounds and limits (the prompt is `roles/prompts/feature-writer.md`). */
export const FEATURE_WRITER_ROLE = {
  /** Refused `submit_feature` calls before the session ends without an entry. */
  maxSubmitAttempts: 3,
  limits: { maxSteps: 8, maxMinutes: 5 },
  maxOutputTokens: 4_000,
  maxStopReturns: 2,
  /** Features of the list shown in the brief (the newest past that: ids are what matters for depends_on). */
  maxListed: 300,
} as const;

/** What the writer's tool collected: the accepted entry, or the problems of each refused one. */
export class WriterRecord implements Submissions {
  readonly refusals: string[][] = [];
  feature: Feature | undefined;
  accepted(): boolean {
    return this.feature !== undefined;
  }
}

/** A writer session that produced an entry: the entry (its id as of the list it saw) and what the session cost. */
export interface WrittenFeature {
  feature: Feature;
  refusals: string[][];
  costUsd: number | null;
  usage: Usage;
  steps: number;
  /** The transcript, in the data dir. */
  transcript: string;
}

/** The writer ended without an accepted entry; nothing was added. */
export class FeatureWriterFailedError extends NightshiftError {
  constructor(
    readonly refusals: string[][],
    reason: string,
    hint: string,
  ) {
    super('FEATURE_NOT_ADDED', `No feature was added: ${reason}; nothing changed.`, { hint, exitCode: 1 });
  }
}

/** Everything one writer session needs, passed explicitly. */
export interface FeatureWriterInput {
  runId: string;
  /** The person's words, verbatim. */
  request: string;
  /** The run's feature list as it is. */
  features: FeatureList;
  provider: ModelProvider;
  prices?: PriceTable;
  /** The data dir: the transcript goes to `runs/<run>/feature-writer/<writerId>.jsonl`. */
  dataDir: string;
  writerId: string;
  signal?: AbortSignal;
  sink?: EventSink;
  /** Secret values kept out of the transcript and the conversation. */
  secrets?: readonly string[];
  clock?: () => number;
}

/** The writer's first message: the person's words, the list it joins, what to submit. */
export function featureWriterMessage(request: string, features: FeatureList): string {
  const shown = features.slice(-FEATURE_WRITER_ROLE.maxListed);
  const lines = shown.map(
    (feature) =>
      `- ${feature.id} [${feature.passes ? 'passing' : 'failing'}] ${feature.description}${feature.depends_on?.length ? ` (depends on ${feature.depends_on.join(', ')})` : ''}`,
  );
  const hidden = features.length - shown.length;
  return [
    '# What a person wants added',
    request,
    `## The run's features (${features.length})`,
    [...(hidden > 0 ? [`(${hidden} older features not shown)`] : []), ...lines].join('\n') || '(none)',
    '## Your output',
    `One submit_feature call: category, description, steps, depends_on. The harness gives the entry the next id (${nextFeatureId(features)}), appends it and the run builds it.`,
  ].join('\n\n');
}

/** `submit_feature`: the writer's only output, checked against the list; each problem goes back to the model. */
export function createSubmitFeatureTool(record: WriterRecord, features: FeatureList) {
  return defineTool({
    name: 'submit_feature',
    description:
      'Submit the new feature entry. The harness checks it against the list and tells you exactly what to fix; once it is accepted the session ends.',
    parameters: z.strictObject({
      category: z.string().describe('one word, e.g. functional'),
      description: z
        .string()
        .describe(`what the feature does for a user (at most ${NEW_FEATURE_LIMITS.description} characters)`),
      steps: z.array(z.string()).describe('what a tester does in the browser and sees, in order'),
      depends_on: z.array(z.string()).optional().describe('ids of listed features this one needs'),
    }),
    async execute(args) {
      if (record.feature) throw new ToolError(`${record.feature.id} was accepted already; stop now.`);
      const checked = validateNewFeature(features, args);
      if (!checked.ok) {
        record.refusals.push(checked.problems);
        const left = FEATURE_WRITER_ROLE.maxSubmitAttempts - record.refusals.length;
        throw new ToolError(
          [
            `The entry was refused (${record.refusals.length} of ${FEATURE_WRITER_ROLE.maxSubmitAttempts} attempts):`,
            ...checked.problems.map((problem) => `- ${problem}`),
            left > 0 ? 'Fix these and call submit_feature again.' : 'No attempts are left; the session ends.',
          ].join('\n'),
        );
      }
      record.feature = checked.feature;
      return `Accepted as ${checked.feature.id}. The session ends here.`;
    },
  });
}

const WORDS = {
  noun: 'feature',
  maxRefusals: FEATURE_WRITER_ROLE.maxSubmitAttempts,
  maxSteps: FEATURE_WRITER_ROLE.limits.maxSteps,
  lastCall: 'Only two model requests are left: call submit_feature now.',
  nothingSubmitted:
    'Nothing was submitted. Call submit_feature with the entry (category, description, steps, depends_on); text replies are not read.',
  activity: 'writing the feature',
  otherModel: 'set another model as models.planner in the config',
};

/**
 * Runs one writer session and returns the accepted entry, or throws {@link FeatureWriterFailedError} naming why there
 * is none (refused too often, the model failed, a limit). The transcript is kept in the data dir either way.
 */
export async function runFeatureWriter(input: FeatureWriterInput): Promise<WrittenFeature> {
  const record = new WriterRecord();
  const dir = path.join(runDataDir(input.dataDir, input.runId), 'feature-writer');
  const transcript = path.join(dir, `${input.writerId}.jsonl`);
  await mkdir(dir, { recursive: true });
  const { limits } = FEATURE_WRITER_ROLE;
  const agent = await runAgent({
    sessionId: `${input.runId}-${input.writerId}`,
    provider: input.provider,
    system: rolePrompt('feature-writer'),
    firstMessage: featureWriterMessage(input.request, input.features),
    tools: [createSubmitFeatureTool(record, input.features)],
    // No tool touches the file system; the context still needs a root, and `.` protects all of it.
    toolContext: { workspace: dir, protectedPaths: ['.'] },
    limits: {
      maxSteps: limits.maxSteps,
      maxWallMs: limits.maxMinutes * 60_000,
      maxOutputTokens: FEATURE_WRITER_ROLE.maxOutputTokens,
      maxStopReturns: FEATURE_WRITER_ROLE.maxStopReturns,
      reminderAt: 1,
    },
    hooks: submissionHooks(record, WORDS),
    transcript: new TranscriptWriter(transcript, input.secrets),
    ...(input.secrets ? { secrets: input.secrets } : {}),
    ...(input.sink ? { sink: input.sink } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.prices ? { prices: input.prices } : {}),
    ...(input.clock ? { clock: input.clock } : {}),
  });
  if (!record.feature) {
    const failure = submissionFailure(agent, record, WORDS);
    log.warn({ runId: input.runId, outcome: agent.outcome, reason: failure.reason }, 'no feature written');
    throw new FeatureWriterFailedError(record.refusals, failure.reason, failure.hint);
  }
  log.info({ runId: input.runId, featureId: record.feature.id, steps: agent.steps }, 'feature written');
  const { costUsd, usage, steps } = agent;
  return { feature: record.feature, refusals: record.refusals, costUsd, usage, steps, transcript };
}
