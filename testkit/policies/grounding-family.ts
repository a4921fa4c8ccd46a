/**
 * The grounding family: scripted evaluators over the todo example's features that write their verdicts in the
 * wording styles of grounding-styles.ts, through the real browser tools and the real wire formats. The style is
 * chosen by the model name (`grounding-past-tense`, `grounding-stale-quotes`, …), so one scripted server serves
 * every style. Each evaluator checks its features (all steps, one left out, or none, as its style does), submits
 * a pass its way, and reacts to the harness's send-back as its style does; then stops.
 */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import type { Policy } from '../types.js';
import { type EvaluationTarget, parseEvaluatorBrief, type SubmittedVerdictArgs } from './evaluator.js';
import { type CheckRun, runCheck } from './grounding-check.js';
import { skippedStep, WORDING_STYLES, type WordingStyle } from './grounding-styles.js';
import { runScript, type ScriptIO } from './script.js';
import { isTodoFeature, type TodoFeature } from './todo-features.js';

/** The model name that selects a style. */
export function familyModel(style: string): string {
  return `grounding-${style}`;
}

/** The style a model name selects, or undefined. */
export function styleOfModel(model: string): WordingStyle | undefined {
  return WORDING_STYLES.find((style) => familyModel(style.name) === model);
}

/** Submissions of one feature at most: the first, the one after a send-back, one after a replay refusal. */
const MAX_SUBMISSIONS = 3;

/** A run for a style that never opens the browser: the steps as written, nothing seen. */
function unseenRun(featureId: string, feature: TodoFeature): CheckRun {
  const steps = feature.steps.map((step) => ({ step, ok: true, evidence: '' }));
  return {
    featureId,
    feature,
    honest: { feature_id: featureId, verdict: 'pass', steps, issues: [] },
    views: [],
    marks: steps.map(() => 0),
  };
}

/** Checks one feature as the style does and submits until a verdict is recorded. */
function evaluateInStyle(
  io: ScriptIO,
  style: WordingStyle,
  url: string,
  target: EvaluationTarget,
  tag: string,
): string {
  const { featureId } = target;
  const feature = target.feature && isTodoFeature(target.feature) ? target.feature : undefined;
  if (!feature) {
    const blocked: SubmittedVerdictArgs = {
      feature_id: featureId,
      verdict: 'blocked',
      steps: [],
      issues: [`The grounding family has no browser check for ${featureId}.`],
    };
    io.call('submit_verdict', { ...blocked });
    return `${featureId} blocked`;
  }
  const run =
    style.browser === 'none'
      ? unseenRun(featureId, feature)
      : runCheck(
          io,
          url,
          { featureId, feature },
          tag,
          style.browser === 'skip-one' ? skippedStep(feature.steps) : undefined,
        );
  let verdict = style.write(run);
  for (let submission = 1; submission <= MAX_SUBMISSIONS; submission += 1) {
    const result = io.call('submit_verdict', { ...verdict }, `${featureId}: ${verdict.verdict}`);
    // Read as a model reads it: the OpenAI wire format does not mark a tool result as an error.
    if (/^Recorded /.test(result.content)) return `${featureId} ${verdict.verdict}`;
    // Sent back for grounding: the style reacts; refused otherwise (a replay that failed): the same again.
    if (/not grounded/.test(result.content)) verdict = style.revise(run, verdict, result.content);
  }
  return `${featureId} refused`;
}

/** The evaluator session of one style. */
export function groundingScript(style: WordingStyle) {
  return (io: ScriptIO): void => {
    const brief = parseEvaluatorBrief(io.firstMessage);
    if (!brief || brief.targets.length === 0) {
      io.finish('I found no app URL or no feature to check in the brief; nothing evaluated.');
      return;
    }
    const outcomes = brief.targets.map((target, index) =>
      evaluateInStyle(
        io,
        style,
        brief.url,
        target,
        brief.targets.length > 1 ? `${io.tag}${index + 1}` : io.tag,
      ),
    );
    const correction = io.finish(`Verdicts submitted: ${outcomes.join(', ')}.`);
    if (correction.trim() !== '') io.finish(`All my verdicts are submitted (${outcomes.join(', ')}).`);
  };
}

/** The family's policy: the style named by the request's model. */
export const groundingFamilyPolicy: Policy = (conversation) => {
  const style = styleOfModel(conversation.model);
  if (!style) {
    const known = WORDING_STYLES.map((candidate) => familyModel(candidate.name)).join(', ');
    return { text: `The grounding family has no style for model ${conversation.model}; known: ${known}.` };
  }
  // The session tag (unique todo texts) must survive replays, so it goes into the first reply.
  return runScript(conversation, groundingScript(style), { recordTag: true });
};

/** The page error a planted app raises after its first form submission. */
export const PLANTED_PAGE_ERROR = 'badge sync failed: badge is undefined';

/**
 * Plants a page error in an assembled todo app (`dir`): after the first form submission (every feature's check
 * adds a todo) the page throws, uncaught, once the submission has done its work.
 */
export async function plantPageError(dir: string): Promise<void> {
  const script = [
    '',
    '// Planted for the grounding family: an uncaught error after the first submission.',
    `document.addEventListener('submit', () => setTimeout(() => { throw new Error('${PLANTED_PAGE_ERROR}'); }, 50), { once: true, capture: true });`,
    '',
  ].join('\n');
  await appendFile(path.join(dir, 'public/features.js'), script);
}
