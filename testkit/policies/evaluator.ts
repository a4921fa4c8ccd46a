/**
 * The scripted evaluator: for each feature in its brief (one, or several in a regression sweep) it
 * runs that feature's browser check, submits one verdict with per-step evidence, and stops. A failing
 * check also leaves a screenshot as evidence. Features it has no check for get `blocked`, never `pass`.
 */

import type { ScriptedToolCall } from '../types.js';
import { CheckBlocked, PageDriver, StepFailed, StepRecorder, type VerdictStep } from './evaluator-page.js';
import { exampleFeatureIn, exampleOf } from './examples.js';
import type { ScriptIO } from './script.js';
import type { ScriptedFeature } from './todo-features.js';

/** One feature to check, as the brief names it. */
export interface EvaluationTarget {
  featureId: string;
  /** The catalogue feature (of any example) its section describes, when known. */
  feature: ScriptedFeature | undefined;
}

/** What the evaluator's first message asks for. */
export interface EvaluatorBrief {
  url: string;
  targets: EvaluationTarget[];
}

/** The arguments of one `submit_verdict` call. */
export interface SubmittedVerdictArgs {
  feature_id: string;
  verdict: 'pass' | 'fail' | 'blocked';
  steps: VerdictStep[];
  issues: string[];
}

/** Finds the app URL and the features to check: one section per heading naming a feature id. */
export function parseEvaluatorBrief(message: string): EvaluatorBrief | undefined {
  const url = /https?:\/\/[^\s)>'"`]+/.exec(message)?.[0];
  if (!url) return undefined;
  const headings = [...message.matchAll(/^#{1,6}[^\n]*?\b(F-\d{3,})\b[^\n]*$/gm)];
  if (headings.length > 0) {
    const targets = headings.map((heading, index) => {
      const end = headings[index + 1]?.index ?? message.length;
      const section = message.slice(heading.index, end);
      return { featureId: heading[1] as string, feature: exampleFeatureIn(section)?.feature };
    });
    return { url, targets: dedupe(targets) };
  }
  const ids = [...new Set([...message.matchAll(/\bF-\d{3,}\b/g)].map((match) => match[0]))];
  const only = ids.length === 1 ? exampleFeatureIn(message)?.feature : undefined;
  return { url, targets: ids.map((featureId) => ({ featureId, feature: only })) };
}

function dedupe(targets: EvaluationTarget[]): EvaluationTarget[] {
  const seen = new Set<string>();
  return targets.filter((target) => !seen.has(target.featureId) && seen.add(target.featureId));
}

/** Runs one feature's check and turns what happened into a verdict. */
export function evaluateFeature(
  io: ScriptIO,
  url: string,
  target: EvaluationTarget,
  tag: string,
): SubmittedVerdictArgs {
  const { featureId, feature } = target;
  if (!feature) {
    return {
      feature_id: featureId,
      verdict: 'blocked',
      steps: [],
      issues: [
        `The scripted evaluator has no browser check for ${featureId}: its steps are not an example's.`,
      ],
    };
  }
  const example = exampleOf(feature);
  if (example.evaluate) return example.evaluate(io, url, featureId, feature, tag);
  const steps = new StepRecorder(feature.steps);
  const page = new PageDriver(io, url);
  try {
    const check = example.checks[feature.check];
    if (!check) throw new CheckBlocked(`The scripted evaluator has no browser check "${feature.check}".`);
    check(page, steps, tag);
    return { feature_id: featureId, verdict: 'pass', steps: steps.complete(), issues: [] };
  } catch (error) {
    if (error instanceof StepFailed) {
      return { feature_id: featureId, verdict: 'fail', steps: steps.complete(), issues: [error.message] };
    }
    if (error instanceof CheckBlocked) {
      return { feature_id: featureId, verdict: 'blocked', steps: steps.complete(), issues: [error.message] };
    }
    throw error;
  }
}

/** The evaluator session. */
export function evaluatorScript(io: ScriptIO): void {
  const brief = parseEvaluatorBrief(io.firstMessage);
  if (!brief || brief.targets.length === 0) {
    io.finish('I found no app URL or no feature to check in the brief; nothing evaluated.');
    return;
  }
  const outcomes: string[] = [];
  brief.targets.forEach((target, index) => {
    const tag = brief.targets.length > 1 ? `${io.tag}${index + 1}` : io.tag;
    const verdict = evaluateFeature(io, brief.url, target, tag);
    const calls: ScriptedToolCall[] = [{ name: 'submit_verdict', arguments: { ...verdict } }];
    // A failed check leaves a picture of the page as evidence; a blocked one may have no page to take.
    if (verdict.verdict === 'fail')
      calls.unshift({ name: 'browser_take_screenshot', arguments: { full_page: true } });
    io.act(
      calls,
      `${target.featureId}: ${verdict.verdict}${verdict.issues[0] ? ` — ${verdict.issues[0]}` : ''}`,
    );
    outcomes.push(`${target.featureId} ${verdict.verdict}`);
  });
  const correction = io.finish(`Verdicts submitted: ${outcomes.join(', ')}.`);
  if (correction.trim() !== '')
    io.finish(`All my verdicts are submitted (${outcomes.join(', ')}); nothing more to check.`);
}
