import { defineTool, ToolError } from '../agent/tool.js';
import { SubmittedVerdict } from '../handoff/formats.js';

/** Collects the evaluator's verdicts: at most one per feature under evaluation. */
export class VerdictCollector {
  private readonly verdicts = new Map<string, SubmittedVerdict>();

  constructor(
    /** The ids under evaluation, in order. */
    readonly featureIds: readonly string[],
  ) {}

  /** Throws a ToolError the model can act on when the verdict cannot be recorded. */
  validate(verdict: SubmittedVerdict): void {
    if (!this.featureIds.includes(verdict.feature_id)) {
      throw new ToolError(
        `${verdict.feature_id} is not under evaluation in this session; expected one of ${this.featureIds.join(', ')}.`,
      );
    }
    if (this.verdicts.has(verdict.feature_id)) {
      throw new ToolError(`A verdict for ${verdict.feature_id} was already submitted; one per feature.`);
    }
    if (
      verdict.verdict === 'pass' &&
      (verdict.steps.length === 0 || verdict.steps.some((step) => !step.ok))
    ) {
      throw new ToolError(
        'A pass needs every step performed and observed: list each step with ok: true and its evidence, or submit fail.',
      );
    }
  }

  /** Records a verdict or explains why it is refused. */
  submit(verdict: SubmittedVerdict): string {
    this.validate(verdict);
    this.verdicts.set(verdict.feature_id, verdict);
    const missing = this.missing();
    return missing.length
      ? `Recorded ${verdict.verdict} for ${verdict.feature_id}. Still to check: ${missing.join(', ')}.`
      : `Recorded ${verdict.verdict} for ${verdict.feature_id}. All verdicts are in; stop now.`;
  }

  /** Features without a verdict yet. */
  missing(): string[] {
    return this.featureIds.filter((id) => !this.verdicts.has(id));
  }

  /** The verdict for a feature, if one was submitted. */
  get(featureId: string): SubmittedVerdict | undefined {
    return this.verdicts.get(featureId);
  }
}

/** Looks at a valid verdict before it is recorded: accepts it (possibly changed) or refuses it with a message. */
export type VerdictReview = (
  verdict: SubmittedVerdict,
) => Promise<{ accept: SubmittedVerdict } | { refuse: string }>;

/**
 * The `submit_verdict` tool of DESIGN.md, writing into a collector (the harness applies verdicts later);
 * `review` (the recorded-check gate) may send a verdict back to the model or change it.
 */
export function createSubmitVerdictTool(collector: VerdictCollector, review?: VerdictReview) {
  return defineTool({
    name: 'submit_verdict',
    description:
      'Submit your verdict for one feature after performing its steps: pass (every step performed and observed), fail (the product is wrong), or blocked (the check could not run). Once per feature.',
    parameters: SubmittedVerdict,
    async execute(args) {
      if (!review) return collector.submit(args);
      collector.validate(args);
      const decision = await review(args);
      if ('refuse' in decision) throw new ToolError(decision.refuse);
      return collector.submit(decision.accept);
    },
  });
}
