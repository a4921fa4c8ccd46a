/**
 * One feature's browser check as the grounding family runs it: the scripted evaluator's own check
 * (evaluator-checks.ts) through a tape that keeps every page view, marks where each step ended, and can leave out
 * the calls of one step (a model that skips it: the check then sees the page as it was). The result is the honest
 * verdict (steps as written, evidence in double quotes) plus what the page showed, for the styles to reword.
 */
import type { ScriptedToolCall } from '../types.js';
import type { SubmittedVerdictArgs } from './evaluator.js';
import { BROWSER_CHECKS } from './evaluator-checks.js';
import { CheckBlocked, PageDriver, StepFailed, StepRecorder } from './evaluator-page.js';
import type { CallResult, ScriptIO } from './script.js';
import { snapshotText } from './snapshot.js';
import type { TodoFeature } from './todo-features.js';

/** What one check left behind. */
export interface CheckRun {
  featureId: string;
  feature: TodoFeature;
  /** The honest verdict: pass or fail as the page decided, steps as written, evidence quoting the page. */
  honest: SubmittedVerdictArgs;
  /** Every page view (snapshot text) the browser tools returned, in order. */
  views: string[];
  /** For each step, how many views there were when it ended (its actions' views end there). */
  marks: number[];
  /** The step whose calls were left out, if any. */
  skipped?: number;
}

/** A script io that keeps the views and, while `skipping` is set, answers calls itself with the last view. */
class Tape implements ScriptIO {
  readonly views: string[] = [];
  skipping = false;
  private last: CallResult | undefined;

  constructor(private readonly io: ScriptIO) {}

  get system(): string {
    return this.io.system;
  }
  get firstMessage(): string {
    return this.io.firstMessage;
  }
  get toolNames(): readonly string[] {
    return this.io.toolNames;
  }
  get tag(): string {
    return this.io.tag;
  }

  act(calls: readonly ScriptedToolCall[], text?: string): CallResult[] {
    // A skipped step is never sent: the page stays as the last result showed it.
    if (this.skipping && this.last) {
      const last = this.last;
      return calls.map((call) => ({
        ...last,
        name: call.name,
        arguments: call.arguments as Record<string, unknown>,
      }));
    }
    const results = this.io.act(calls, text);
    for (const result of results) {
      if (result.isError) continue;
      this.views.push(snapshotText(result.content));
      this.last = result;
    }
    return results;
  }

  call(name: string, args: Record<string, unknown>, text?: string): CallResult {
    return this.act([{ name, arguments: args }], text)[0] as CallResult;
  }

  finish(text: string): string {
    return this.io.finish(text);
  }
}

/** A step recorder that marks, for each step, how many views the tape holds when the step ends. */
class MarkingRecorder extends StepRecorder {
  readonly marks: number[] = [];

  constructor(
    steps: readonly string[],
    private readonly tape: Tape,
    private readonly skip: number | undefined,
  ) {
    super(steps);
  }

  override run(index: number, body: () => string): void {
    this.tape.skipping = index === this.skip;
    try {
      super.run(index, body);
    } finally {
      this.tape.skipping = false;
      this.marks[index] = this.tape.views.length;
    }
  }
}

/**
 * Runs a feature's check (leaving out step `skip`'s calls when given). A check that fails or cannot run gives
 * the honest fail or blocked verdict; the views and marks are kept either way.
 */
export function runCheck(
  io: ScriptIO,
  url: string,
  target: { featureId: string; feature: TodoFeature },
  tag: string,
  skip?: number,
): CheckRun {
  const tape = new Tape(io);
  const steps = new MarkingRecorder(target.feature.steps, tape, skip);
  const page = new PageDriver(tape, url);
  const verdict = (value: SubmittedVerdictArgs['verdict'], issues: string[]): CheckRun => ({
    featureId: target.featureId,
    feature: target.feature,
    honest: { feature_id: target.featureId, verdict: value, steps: steps.complete(), issues },
    views: tape.views,
    marks: target.feature.steps.map((_, index) => steps.marks[index] ?? tape.views.length),
    ...(skip === undefined ? {} : { skipped: skip }),
  });
  try {
    BROWSER_CHECKS[target.feature.check](page, steps, tag);
    return verdict('pass', []);
  } catch (error) {
    if (error instanceof StepFailed) return verdict('fail', [error.message]);
    if (error instanceof CheckBlocked) return verdict('blocked', [error.message]);
    throw error;
  }
}

/** Whether `text` holds `phrase` as whole words. */
export function hasPhrase(text: string, phrase: string): boolean {
  const escaped = phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').test(text);
}

/** The view (snapshot text) at the end of step `index`, or ''. */
export function viewAtStep(run: CheckRun, index: number): string {
  const mark = run.marks[index] ?? run.views.length;
  return run.views[mark - 1] ?? '';
}
