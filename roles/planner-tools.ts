import { z } from 'zod';
import { defineTool, ToolError } from '../agent/tool.js';
import type { PlannerExchange } from '../handoff/spec-origin.js';
import { CONTROL_CHARACTERS, plannedSpecProblems } from './planner-spec.js';

/** Asks the user the questions; resolves to one answer per question (`''` for none). Must honour `signal`. */
export type AskUser = (questions: readonly string[], signal: AbortSignal) => Promise<string[]>;

/** How much the planner may ask and how often it may submit. */
export interface PlannerBounds {
  /** Questions in total over the session. */
  maxQuestions: number;
  /** `ask_user` calls that may be answered. */
  maxAskRounds: number;
  /** Refused `submit_spec` calls before the session ends as failed. */
  maxSubmitAttempts: number;
}

/** What the planner's tools collected: the exchanges, the accepted spec, the refusals. */
export class PlannerRecord {
  readonly exchanges: PlannerExchange[] = [];
  /** Refused submissions, each with the problems sent back. */
  readonly refusals: string[][] = [];
  rounds = 0;
  spec: string | undefined;
}

const NO_ANSWER = '(no answer: decide yourself and say what you assumed)';

/** `ask_user {questions}`: the interactive planner's only way to the user, bounded by the harness. */
export function createAskUserTool(record: PlannerRecord, ask: AskUser, bounds: PlannerBounds) {
  return defineTool({
    name: 'ask_user',
    description: `Ask the user a few short clarifying questions (at most ${bounds.maxQuestions} in total, in at most ${bounds.maxAskRounds} call(s)) before writing the spec. Ask only what changes the product; answers may be empty.`,
    parameters: z.strictObject({
      questions: z
        .array(
          z
            .string()
            .trim()
            .min(1)
            .max(500)
            .refine(
              (question) => !CONTROL_CHARACTERS.test(question),
              'plain text only: no control characters',
            ),
        )
        .min(1)
        .max(bounds.maxQuestions)
        .describe('the questions, one per entry, each answerable in a sentence'),
    }),
    async execute(args, context) {
      const left = bounds.maxQuestions - record.exchanges.length;
      if (record.rounds >= bounds.maxAskRounds || left <= 0) {
        throw new ToolError(
          'You have asked all the questions you may. Write the spec now with what you know, and state your assumptions in it.',
        );
      }
      if (args.questions.length > left) {
        throw new ToolError(`You may ask at most ${left} more question(s); ask fewer.`);
      }
      record.rounds++;
      const answers = await ask(args.questions, context.signal);
      const exchanges = args.questions.map((question, index) => ({
        question,
        answer: (answers[index] ?? '').trim(),
      }));
      record.exchanges.push(...exchanges);
      return exchanges
        .map(({ question, answer }, index) => `${index + 1}. ${question}\n   Answer: ${answer || NO_ANSWER}`)
        .join('\n');
    },
  });
}

/** `submit_spec {markdown}`: the planner's only output; the harness validates it and decides where it goes. */
export function createSubmitSpecTool(record: PlannerRecord, bounds: PlannerBounds) {
  return defineTool({
    name: 'submit_spec',
    description:
      'Submit the whole spec as markdown (title, then the required ## sections). The harness checks it and tells you exactly what to fix; once it is accepted the session ends.',
    parameters: z.strictObject({ markdown: z.string().describe('the complete spec, markdown') }),
    async execute(args) {
      if (record.spec !== undefined) throw new ToolError('A spec was already accepted; stop now.');
      const markdown = `${args.markdown.replace(/\r\n?/g, '\n').trim()}\n`;
      const problems = plannedSpecProblems(markdown);
      if (problems.length > 0) {
        record.refusals.push(problems);
        const left = bounds.maxSubmitAttempts - record.refusals.length;
        throw new ToolError(
          [
            `The spec was refused (${record.refusals.length} of ${bounds.maxSubmitAttempts} attempts):`,
            ...problems.map((problem) => `- ${problem}`),
            left > 0
              ? 'Fix these and call submit_spec again with the whole spec.'
              : 'No attempts are left; the session ends.',
          ].join('\n'),
        );
      }
      record.spec = markdown;
      return `Spec accepted (${Buffer.byteLength(markdown)} bytes). The session ends here.`;
    },
  });
}
