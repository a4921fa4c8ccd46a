import { defineTool, ToolError } from '../agent/tool.js';
import type { ObservationEntry } from '../agent/tools/browser-log.js';
import { type GroundedFeature, groundPass } from '../evaluation/grounding.js';
import { type Feature, type GroundingFailure, SubmittedVerdict } from '../handoff/formats.js';

/** What the collector grounds passes against: the features under evaluation and the session's observations. */
export interface GroundingSource {
  features: readonly (Pick<Feature, 'id'> & GroundedFeature)[];
  observations: () => readonly ObservationEntry[];
  /** Told of every ungrounded pass as it happens (`final`: it was recorded as blocked). */
  onUngrounded?: (featureId: string, failure: GroundingFailure, final: boolean) => void;
}

/** Ungrounded passes sent back to the model before the next one is recorded as blocked. */
export const UNGROUNDED_SEND_BACKS = 1;

/**
 * Collects the evaluator's verdicts: at most one per feature under evaluation. A pass is grounded first
 * (evaluation/grounding.ts): an ungrounded pass is sent back once with what is missing; the next one is recorded
 * as `blocked` with the problems as its reason — never as a pass.
 */
export class VerdictCollector {
  private readonly verdicts = new Map<string, SubmittedVerdict>();
  private readonly failures = new Map<string, GroundingFailure[]>();

  constructor(
    /** The ids under evaluation, in order. */
    readonly featureIds: readonly string[],
    private readonly grounding: GroundingSource,
  ) {}

  /**
   * Throws a ToolError the model can act on when the verdict cannot be recorded (an ungrounded pass is sent
   * back this way once); returns false for a pass that is ungrounded past the send-back (recorded as blocked).
   */
  validate(verdict: SubmittedVerdict): boolean {
    if (!this.featureIds.includes(verdict.feature_id)) {
      throw new ToolError(
        `${verdict.feature_id} is not under evaluation in this session; expected one of ${this.featureIds.join(', ')}.`,
      );
    }
    if (this.verdicts.has(verdict.feature_id)) {
      throw new ToolError(`A verdict for ${verdict.feature_id} was already submitted; one per feature.`);
    }
    return verdict.verdict === 'pass' ? this.ground(verdict) : true;
  }

  /** Records a verdict or explains why it is refused. */
  submit(verdict: SubmittedVerdict): string {
    this.validate(verdict);
    return this.record(verdict);
  }

  /** Records a verdict that `validate` accepted. */
  record(verdict: SubmittedVerdict): string {
    this.verdicts.set(verdict.feature_id, verdict);
    const missing = this.missing();
    const recorded = this.blockedReason(verdict.feature_id) ? 'blocked (ungrounded pass)' : verdict.verdict;
    return missing.length
      ? `Recorded ${recorded} for ${verdict.feature_id}. Still to check: ${missing.join(', ')}.`
      : `Recorded ${recorded} for ${verdict.feature_id}. All verdicts are in; stop now.`;
  }

  /** Throws (sends the pass back) while send-backs remain; afterwards the pass is kept but recorded blocked. */
  private ground(verdict: SubmittedVerdict): boolean {
    const feature = this.grounding.features.find((candidate) => candidate.id === verdict.feature_id);
    const result = feature
      ? groundPass(feature, verdict, this.grounding.observations())
      : { grounded: false as const, problems: [`${verdict.feature_id} is not in feature_list.json.`] };
    if (result.grounded) return true;
    const earlier = this.failures.get(verdict.feature_id) ?? [];
    const failure: GroundingFailure = { attempt: earlier.length + 1, problems: result.problems };
    this.failures.set(verdict.feature_id, [...earlier, failure]);
    const final = earlier.length >= UNGROUNDED_SEND_BACKS;
    this.grounding.onUngrounded?.(verdict.feature_id, failure, final);
    if (final) return false;
    throw new ToolError(sendBack(verdict.feature_id, result.problems));
  }

  /** Features without a verdict yet. */
  missing(): string[] {
    return this.featureIds.filter((id) => !this.verdicts.has(id));
  }

  /** The verdict for a feature, if one was submitted. */
  get(featureId: string): SubmittedVerdict | undefined {
    return this.verdicts.get(featureId);
  }

  /** The grounding failures of a feature's passes in this session, oldest first. */
  groundingFailures(featureId: string): GroundingFailure[] {
    return this.failures.get(featureId) ?? [];
  }

  /**
   * Why a feature's verdict must be recorded `blocked` despite what was submitted: its pass was ungrounded
   * past the send-back, or it was sent back and no verdict followed.
   */
  blockedReason(featureId: string): string | undefined {
    const failures = this.failures.get(featureId) ?? [];
    const last = failures.at(-1);
    if (!last) return undefined;
    const submitted = this.verdicts.get(featureId);
    if (submitted && (submitted.verdict !== 'pass' || failures.length <= UNGROUNDED_SEND_BACKS))
      return undefined;
    return `ungrounded pass: ${last.problems.join(' ')}`;
  }
}

/**
 * The tool error that sends an ungrounded pass back: each problem names the feature's exact step, what was written
 * and the one thing to change; everything not named is grounded and may stay as it is.
 */
export function sendBack(featureId: string, problems: readonly string[]): string {
  return [
    `This pass for ${featureId} is not grounded in what your browser session showed. Change only what is named below; the rest of your pass is grounded:`,
    ...problems.map((problem) => `- ${problem}`),
    'Then submit again — or submit fail or blocked. Another ungrounded pass is recorded as blocked.',
  ].join('\n');
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
      'Submit your verdict for one feature after performing its steps: pass (every step performed and observed, each with quoted evidence), fail (the product is wrong), or blocked (the check could not run). Once per feature.',
    parameters: SubmittedVerdict,
    async execute(args) {
      // A pass recorded as blocked (ungrounded) is not worth a recorded check.
      if (!collector.validate(args) || !review) return collector.record(args);
      const decision = await review(args);
      if ('refuse' in decision) throw new ToolError(decision.refuse);
      return collector.record(decision.accept);
    },
  });
}
