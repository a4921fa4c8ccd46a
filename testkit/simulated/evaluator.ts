/**
 * The simulated evaluator: the grounding family's honest wording styles on the todo example (the demo's evaluator
 * elsewhere), checking every step in the real browser — and, at a seeded rate, failing a feature its check passed.
 * Only a pass is ever turned: a failed or blocked check is submitted as it is, so there is no false pass.
 */
import { evaluatorScript, parseEvaluatorBrief, type SubmittedVerdictArgs } from '../policies/evaluator.js';
import { groundingScript } from '../policies/grounding-family.js';
import { WORDING_STYLES, type WordingStyle } from '../policies/grounding-styles.js';
import { type Script, type ScriptIO, withAct } from '../policies/script.js';
import { isTodoFeature } from '../policies/todo-features.js';

/** The styles an honest evaluator writes in. */
export const HONEST_STYLES: readonly WordingStyle[] = WORDING_STYLES.filter(
  (style) => style.kind === 'honest',
);

/** A pass turned into a fail: the last step was misread; the issue says so in the evaluator's words. */
export function falseFail(verdict: SubmittedVerdictArgs): SubmittedVerdictArgs {
  const last = verdict.steps.length - 1;
  const misread = verdict.steps[last];
  const steps = verdict.steps.map((step, index) =>
    index === last
      ? { ...step, ok: false, evidence: 'The page did not show this when I looked; it may not have updated.' }
      : step,
  );
  const issue = misread
    ? `Step ${last + 1} ("${misread.step}") did not hold when I checked the page.`
    : 'The feature did not behave as its steps say when I checked.';
  return { ...verdict, verdict: 'fail', steps, issues: [issue] };
}

/** The io with each pass for a feature in `misread` submitted as a fail (`made` told of each). */
function misreadingIO(
  io: ScriptIO,
  misread: ReadonlySet<string>,
  made: (featureId: string) => void,
): ScriptIO {
  return withAct(io, (calls, text) => {
    const sent = calls.map((call) => {
      const args = call.arguments as unknown as SubmittedVerdictArgs;
      if (call.name !== 'submit_verdict' || args.verdict !== 'pass' || !misread.has(args.feature_id))
        return call;
      made(args.feature_id);
      return { ...call, arguments: { ...falseFail(args) } };
    });
    return io.act(sent, text);
  });
}

/** The evaluator session: `style` on todo features, the demo evaluator otherwise; passes in `misread` fail. */
export function simulatedEvaluator(
  style: WordingStyle,
  misread: ReadonlySet<string>,
  made: (featureId: string) => void,
): Script {
  return (io) => {
    const targets = parseEvaluatorBrief(io.firstMessage)?.targets ?? [];
    const todo =
      targets.length > 0 && targets.every((target) => target.feature && isTodoFeature(target.feature));
    const script = todo ? groundingScript(style) : evaluatorScript;
    script(misreadingIO(io, misread, made));
  };
}
