/**
 * The scripted planner: turns an idea into the todo example's spec in the planner's format (so the demo's
 * scripted initializer, generators and evaluator can build it), asking two questions when `ask_user` is
 * offered and putting the answers into the spec. A marker in the idea picks a misbehaving planner for tests:
 * - `[scripted:hostile]` tries tools it does not have (`write` outside the workspace, `bash`) and a
 *   `submit_spec` with a path, then stops without a spec;
 * - `[scripted:empty]` submits an empty spec until the harness gives up;
 * - `[scripted:sloppy]` first submits a spec missing a section, then fixes it from the harness's error.
 * Load it with `testkit/main.ts` (default export) or through the demo policy.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Policy } from '../types.js';
import { runScript, type ScriptIO } from './script.js';
import { withScriptedFeatureCount } from './todo-features.js';
import { SCRIPTED_SOURCES_DIR } from './todo-sources.js';

/** The questions the scripted planner asks, in order: who it is for, how it should look. */
export const PLANNER_QUESTIONS = [
  'Who is the list for, and what should it help them keep track of?',
  'What look and feel do you want (colours, tone, density)?',
] as const;

/** What the spec says when a question got no answer. */
export const DEFAULT_ANSWERS = ['anyone who keeps a simple personal list', 'Calm and quiet'] as const;

const TEMPLATE_PATH = path.join(SCRIPTED_SOURCES_DIR, 'planner', 'app_spec.template.md');

/** The idea of the session: the text under "# The idea" in the first message. */
export function ideaOf(firstMessage: string): string {
  const match = /# The idea\n+([\s\S]*?)\n+## Mode/.exec(firstMessage);
  return (match?.[1] ?? firstMessage).trim();
}

/** The answers in an `ask_user` result, in order (`''` for none). */
export function answersOf(result: string): string[] {
  return [...result.matchAll(/^\s*Answer: (.*)$/gm)].map((match) => {
    const answer = (match[1] ?? '').trim();
    return answer.startsWith('(no answer') ? '' : answer;
  });
}

/** The todo spec for an idea, with the answers (or the defaults) filled in. */
export function todoSpecFor(idea: string, answers: readonly string[] = []): string {
  const oneLine = idea
    .replace(/\[scripted:[a-z0-9-]+\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const fill: Record<string, string> = {
    idea: oneLine.replace(/[.!]+$/, '') || 'a todo list',
    audience: answers[0] || DEFAULT_ANSWERS[0],
    look: answers[1] || DEFAULT_ANSWERS[1],
  };
  const spec = readFileSync(TEMPLATE_PATH, 'utf8').replace(
    /\{\{(\w+)\}\}/g,
    (_, key: string) => fill[key] ?? '',
  );
  // `[scripted:features-N]` in the idea: a spec the scripted initializer breaks into its first N features only.
  const count = /\[scripted:features-(\d+)\]/.exec(idea)?.[1];
  return count ? withScriptedFeatureCount(spec, Number(count)) : spec;
}

/** True when the harness refused a submission (read from the text: the OpenAI wire has no error flag). */
function refusedSpec(result: string): boolean {
  return /^The spec was refused/.test(result);
}

function hostile(io: ScriptIO, spec: string): void {
  io.call('write', { path: '../../outside-the-spec.md', content: spec }, 'Saving the spec myself.');
  io.call('bash', { command: 'echo planned > /tmp/nightshift-planner-escape' }, 'Then via the shell.');
  io.call('submit_spec', { markdown: spec, path: '/tmp/nightshift-planner-escape.md' }, 'With a path.');
  let back = io.finish('I could not save the spec where I wanted; stopping.');
  while (back.trim() !== '') back = io.finish('I will not submit it through submit_spec.');
}

/** The planner session. */
export function plannerScript(io: ScriptIO): void {
  const idea = ideaOf(io.firstMessage);
  const behaviour = /\[scripted:([a-z-]+)\]/.exec(idea)?.[1];
  if (behaviour === 'hostile') {
    hostile(io, todoSpecFor(idea));
    return;
  }
  if (behaviour === 'empty') {
    // Each attempt differs a little (the loop refuses the same call three times in a row on its own).
    for (let attempt = 0; attempt < 6; attempt++) {
      io.call('submit_spec', { markdown: ' '.repeat(attempt) }, 'Submitting.');
    }
    return;
  }
  let answers: string[] = [];
  if (io.toolNames.includes('ask_user')) {
    const asked = io.call('ask_user', { questions: [...PLANNER_QUESTIONS] }, 'Two questions first.');
    answers = answersOf(asked.content);
  }
  const spec = todoSpecFor(idea, answers);
  if (behaviour === 'sloppy') {
    const cut = spec.slice(0, spec.indexOf('## Out of scope'));
    const first = io.call('submit_spec', { markdown: cut }, 'Submitting the spec.');
    if (!refusedSpec(first.content)) {
      io.finish('Spec submitted.');
      return;
    }
  }
  const submitted = io.call('submit_spec', { markdown: spec }, 'Submitting the spec.');
  io.finish(
    refusedSpec(submitted.content) ? `The harness refused the spec: ${submitted.content}` : 'Spec submitted.',
  );
}

/** The planner policy (the default export for `testkit/main.ts`). */
export const plannerPolicy: Policy = (conversation) => runScript(conversation, plannerScript);

export default plannerPolicy;
