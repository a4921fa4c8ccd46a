/**
 * Where a planned spec came from: the prompt, the questions and answers, the planner's model. Committed with
 * the spec as the run's first commit (in the commit body and in `.nightshift/plan.md`), so a later reader of
 * the workspace sees what the build was asked for, not only the spec it was built from.
 */
import { z } from 'zod';
import { writeWorkspaceFile } from './safe-fs.js';

/** Workspace-relative path of the planning record (the harness's directory: sessions may not write it). */
export const PLAN_RECORD_FILE = '.nightshift/plan.md';

/** One clarifying question the planner asked and the user's answer (`''` when they gave none). */
export const PlannerExchange = z.object({ question: z.string(), answer: z.string() });
export type PlannerExchange = z.infer<typeof PlannerExchange>;

/** The origin of a planned spec. */
export const SpecOrigin = z.object({
  /** The user's idea, verbatim. */
  prompt: z.string().min(1),
  planId: z.string().min(1),
  /** The planner's model id. */
  model: z.string().min(1),
  exchanges: z.array(PlannerExchange),
  /** USD; null when the model's price is unknown. */
  costUsd: z.number().nullable(),
  /** When the planner's spec was accepted (ISO 8601). */
  plannedAt: z.string(),
  /** True when a person changed the spec between the planner and the run. */
  edited: z.boolean(),
});
export type SpecOrigin = z.infer<typeof SpecOrigin>;

function quoted(text: string): string {
  return text
    .trim()
    .split('\n')
    .map((line) => `> ${line}`.trimEnd())
    .join('\n');
}

function cost(value: number | null): string {
  return value === null ? 'unknown (no price for the model)' : `$${value.toFixed(4)}`;
}

/** The markdown of `.nightshift/plan.md`. */
export function planRecordMarkdown(origin: SpecOrigin, specFile: string): string {
  const exchanges = origin.exchanges.length
    ? origin.exchanges
        .map(
          (exchange, index) =>
            `${index + 1}. ${exchange.question}\n   Answer: ${exchange.answer || '(none: the planner decided)'}`,
        )
        .join('\n')
    : 'None: the planner worked from the prompt alone.';
  return [
    '# How this spec was made',
    '',
    `\`${specFile}\` was written by the nightshift planner from this prompt:`,
    '',
    quoted(origin.prompt),
    '',
    '## Questions and answers',
    '',
    exchanges,
    '',
    '## Planner session',
    '',
    `- plan: ${origin.planId}`,
    `- model: ${origin.model}`,
    `- accepted: ${origin.plannedAt}`,
    `- cost: ${cost(origin.costUsd)}`,
    `- edited by a person before the run: ${origin.edited ? 'yes' : 'no'}`,
    '',
  ].join('\n');
}

/** The body of the first commit: the prompt, verbatim, and where the rest of the record is. */
export function planCommitBody(origin: SpecOrigin): string {
  return [
    `Planned by the nightshift planner (${origin.model}, plan ${origin.planId}) from the prompt:`,
    '',
    quoted(origin.prompt),
    '',
    `Questions and answers: ${origin.exchanges.length} (see ${PLAN_RECORD_FILE}).${origin.edited ? ' The spec was edited by a person before the run.' : ''}`,
  ].join('\n');
}

/** The summary of the commit that adds the spec: the subject, then the plan's body when the spec was planned. */
export function specCommitSummary(subject: string, origin: SpecOrigin | undefined): string {
  return origin ? `${subject}\n\n${planCommitBody(origin)}` : subject;
}

/** Writes `.nightshift/plan.md` into a workspace directory (a clone of a remote too: no committed link followed). */
export async function writePlanRecord(dir: string, origin: SpecOrigin, specFile: string): Promise<void> {
  await writeWorkspaceFile(dir, PLAN_RECORD_FILE, planRecordMarkdown(SpecOrigin.parse(origin), specFile));
}
