/**
 * One trial of the grounding family: an evaluator session of one wording style on one feature of the finished
 * todo app, through the real harness (roles/evaluator.ts: the app started, a fresh browser context, the browser
 * tools, submit_verdict with grounding and the pass gate) and the real SDK of one wire format, against the
 * scripted server. Used by the bench's grounding section and by the suite's sample of the family.
 */
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { createAnthropicProvider, createOpenAIProvider } from '../agent/providers/index.js';
import type { BrowserSource } from '../evaluation/browser-source.js';
import { GroundingFailure, SubmittedVerdict, VerdictValue } from '../handoff/formats.js';
import { runRoleSession } from '../roles/session.js';
import {
  familyModel,
  groundingFamilyPolicy,
  plantPageError,
  styleOfModel,
} from '../testkit/policies/grounding-family.js';
import type { ModelServer, Policy, WireFormat } from '../testkit/types.js';
import { demoWorkspace } from './checks.js';

/** What one trial showed. */
export const TrialOutcome = z.object({
  style: z.string(),
  kind: z.enum(['honest', 'sloppy', 'cheating']),
  featureId: z.string(),
  format: z.enum(['anthropic', 'openai']),
  /** The harness's refusals of the style's passes, in order (attempt 1 = the first submission). */
  refusals: z.array(GroundingFailure),
  /** The verdict recorded for the feature. */
  verdict: VerdictValue,
  /** Every `submit_verdict` the style made, in order. */
  submissions: z.array(SubmittedVerdict),
  /** Why a pass was accepted without a recorded check, if it was. */
  unrecorded: z.string().optional(),
  wallMs: z.number(),
});
export type TrialOutcome = z.infer<typeof TrialOutcome>;

/** The family's policy, noting every submission it makes (in request order) into `sink`. */
export function noteSubmissions(sink: { model: string; verdict: SubmittedVerdict }[]): Policy {
  return async (conversation) => {
    const reply = await groundingFamilyPolicy(conversation);
    if ('toolCalls' in reply) {
      for (const call of reply.toolCalls ?? []) {
        if (call.name !== 'submit_verdict' || typeof call.arguments === 'string') continue;
        const parsed = SubmittedVerdict.safeParse(call.arguments);
        if (parsed.success) sink.push({ model: conversation.model, verdict: parsed.data });
      }
    }
    return reply;
  };
}

/** Templates of the finished todo app as committed workspaces: as built, and with a planted page error. */
export interface TrialTemplates {
  correct: string;
  pageError: string;
  ids: string[];
}

/** Builds the two templates under `root`. */
export async function trialTemplates(root: string): Promise<TrialTemplates> {
  const correct = await demoWorkspace(path.join(root, 'template-correct'));
  const pageError = await demoWorkspace(path.join(root, 'template-page-error'), plantPageError);
  return { correct: correct.workspace, pageError: pageError.workspace, ids: correct.ids };
}

/** A workspace of its own for a style (a copy of the right template, `.git` included). */
export function styleWorkspace(templates: TrialTemplates, root: string, style: string): string {
  const dir = path.join(root, `style-${style}`);
  mkdirSync(dir, { recursive: true });
  cpSync(style === 'hides-page-error' ? templates.pageError : templates.correct, dir, { recursive: true });
  return dir;
}

/** The real SDK of one wire format, pointed at the scripted server, asking for `model`. */
function scriptedProvider(server: ModelServer, model: string, format: WireFormat) {
  const common = { model, maxRetries: 0 };
  return format === 'anthropic'
    ? createAnthropicProvider({ ...common, apiKey: 'sk-ant-bench-000000', baseURL: server.anthropicBaseURL })
    : createOpenAIProvider({
        ...common,
        apiKey: 'sk-bench-000000',
        baseURL: server.openaiBaseURL,
        providerName: 'openai',
      });
}

/** Runs one style on one feature in one wire format; `submissions` is the sink of {@link noteSubmissions}. */
export async function runTrial(
  server: ModelServer,
  options: {
    browser: BrowserSource;
    workspace: string;
    dataDir: string;
    style: string;
    featureId: string;
    session: number;
    format: WireFormat;
    submissions: { model: string; verdict: SubmittedVerdict }[];
  },
): Promise<TrialOutcome> {
  const model = familyModel(options.style);
  const style = styleOfModel(model);
  if (!style) throw new Error(`no grounding style "${options.style}"`);
  const provider = scriptedProvider(server, model, options.format);
  const refusals: GroundingFailure[] = [];
  const noted = options.submissions.length;
  const started = performance.now();
  const result = await runRoleSession({
    role: 'evaluator',
    runId: 'grounding',
    session: options.session,
    workspace: options.workspace,
    dataDir: options.dataDir,
    featureIds: [options.featureId],
    provider,
    limits: { maxSteps: 60, maxMinutes: 5 },
    sandbox: { sandbox: 'none' },
    browser: options.browser,
    onNotice: (notice) => {
      if (notice.type === 'verdict.ungrounded')
        refusals.push({ attempt: notice.attempt, problems: notice.problems });
    },
  });
  const record = result.verdicts.find((verdict) => verdict.featureId === options.featureId);
  const unrecorded =
    record && 'unrecorded' in record ? (record as { unrecorded?: string }).unrecorded : undefined;
  return {
    style: style.name,
    kind: style.kind,
    featureId: options.featureId,
    format: options.format,
    refusals,
    verdict: record?.verdict ?? 'blocked',
    submissions: options.submissions
      .slice(noted)
      .filter((entry) => entry.model === model)
      .map((entry) => entry.verdict),
    ...(unrecorded ? { unrecorded } : {}),
    wallMs: Math.round(performance.now() - started),
  };
}
