import { z } from 'zod';
import { defineTool, type Tool } from '../tool.js';

/** Arguments of `ask_human`. */
export const AskHumanArgs = z.strictObject({
  question: z
    .string()
    .trim()
    .min(1, 'the question is required')
    .max(2_000)
    .describe('One question a person can answer in a sentence: what you need decided, and why it matters.'),
  options: z
    .array(z.string().trim().min(1).max(300))
    .max(8)
    .optional()
    .describe('The choices you see, if any (the person may answer something else).'),
  feature_id: z.string().optional().describe("The feature the question is about (default: this session's)."),
});
/** Arguments of `ask_human`. */
export type AskHumanArgs = z.infer<typeof AskHumanArgs>;

/** What the asker reports: the question's id (the session then ends), or why nobody can be asked (decide yourself). */
export type AskHumanReply = { kind: 'asked'; id: string } | { kind: 'decide'; reason: string };

/**
 * Records the question for a person. Supplied by the caller (the harness keeps the questions); throws an error the
 * model can act on when the arguments do not fit the session.
 */
export type AskHuman = (request: {
  question: string;
  options: string[];
  featureId: string | undefined;
}) => Promise<AskHumanReply>;

/**
 * The `ask_human` tool: a question the spec leaves open goes to a person instead of a guess. Asking ends the session
 * (the caller ends it after this turn); the answer comes in the next session's brief.
 */
export function createAskHumanTool(ask: AskHuman): Tool<typeof AskHumanArgs> {
  return defineTool({
    name: 'ask_human',
    description:
      'Ask a person a question the spec does not answer and that changes what you build (not how). Your session ends ' +
      'after this call: the harness commits your work as it is and the feature waits for the answer, which the next ' +
      'session gets in its brief. Commit first (with a progress note) what is worth keeping. Ask rarely.',
    parameters: AskHumanArgs,
    async execute(args) {
      const { question, options, feature_id } = AskHumanArgs.parse(args);
      const reply = await ask({ question, options: options ?? [], featureId: feature_id });
      if (reply.kind === 'decide') return { content: reply.reason, details: { asked: false } };
      return {
        content:
          `Question ${reply.id} is recorded for a person. This session ends now: the harness commits your work as it ` +
          'is, and the next session of this feature gets the answer in its brief. Do not go on.',
        details: { asked: true, questionId: reply.id },
      };
    },
  });
}
