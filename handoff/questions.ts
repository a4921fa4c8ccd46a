import { z } from 'zod';
import { writeWorkspaceFile } from './safe-fs.js';

/** Workspace-relative path of the run's questions and their answers, committed by the harness. */
export const QUESTIONS_FILE = '.nightshift/questions.md';

/** What an unanswered question gets past its timeout, and what `ask_human` says past the cap. */
export const DECIDE_YOURSELF = 'Decide yourself, and say what you decided in progress notes.';

/** Who answered a question: a person (CLI, dashboard, HTTP API) or the harness (the question's timeout). */
export const AnsweredBy = z.enum(['cli', 'dashboard', 'api', 'timeout']);
export type AnsweredBy = z.infer<typeof AnsweredBy>;

/** One question a session asked a person (`ask_human`), kept on the run record; open while `answer` is null. */
export const Question = z.object({
  /** `Q-1`, `Q-2`… in the order asked, per run. */
  id: z.string().regex(/^Q-\d+$/),
  /** The feature that waits for the answer. */
  featureId: z.string(),
  role: z.enum(['generator', 'evaluator']),
  /** The session that asked. */
  seq: z.number().int().nonnegative(),
  question: z.string().min(1),
  options: z.array(z.string()).default([]),
  askedAt: z.string(),
  answer: z.string().nullable().default(null),
  answeredAt: z.string().nullable().default(null),
  answeredBy: AnsweredBy.nullable().default(null),
});
export type Question = z.infer<typeof Question>;

/** The questions still waiting for an answer. */
export function openQuestions(questions: readonly Question[]): Question[] {
  return questions.filter((question) => question.answer === null);
}

/** The markdown of `.nightshift/questions.md`: every question in the order asked, with its answer or "open". */
export function questionsMarkdown(questions: readonly Question[]): string {
  const lines = ['# Questions to a person', ''];
  for (const question of questions) {
    lines.push(`## ${question.id} (${question.featureId}, session ${question.seq}, ${question.askedAt})`, '');
    lines.push(`Question: ${question.question}`);
    if (question.options.length > 0) lines.push(`Options: ${question.options.join(' | ')}`);
    lines.push(
      question.answer === null
        ? 'Answer: (open: waiting for a person)'
        : `Answer (${question.answeredBy ?? 'unknown'}, ${question.answeredAt ?? ''}): ${question.answer}`,
      '',
    );
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Writes `.nightshift/questions.md` (never through a link) from the run's questions. */
export async function writeQuestionsFile(workspace: string, questions: readonly Question[]): Promise<void> {
  await writeWorkspaceFile(workspace, QUESTIONS_FILE, questionsMarkdown(questions));
}
