/** The evaluator's open evaluation and how its verdicts are recorded (roles/evaluator.ts runs the session). */
import type { BrowserSource } from '../evaluation/browser-source.js';
import type { CheckGate } from '../evaluation/check-gate.js';
import type { RunningApp } from '../handoff/app-runner.js';
import type { Feature, VerdictRecord } from '../handoff/formats.js';
import type { WorkspaceRepo } from '../handoff/git.js';
import type { VerdictCollector } from './submit-verdict.js';
import type { RoleSessionInput } from './types.js';
import { toVerdictRecord, type VerdictContext } from './verdicts.js';

/** The evaluation's browser context, as the browser source hands it out. */
export type EvaluationContext = Awaited<ReturnType<BrowserSource['acquireContext']>>;

/** What the replays before a regression check left to the model (an evaluation: every feature). */
export interface FirstReplays {
  /** Passes recorded from green replays, without a model. */
  replayed: VerdictRecord[];
  /** The failed replay of each feature whose check was red (`recorded check vN failed at …`). */
  failures: Map<string, string>;
  /** The features the model evaluates. */
  open: Feature[];
}

/** An evaluation with its app and browser context up: what the session's tools, gate and closing work on. */
export interface OpenEvaluation {
  input: RoleSessionInput;
  repo: WorkspaceRepo;
  browser: BrowserSource;
  mode: 'evaluate' | 'regression';
  /** Every feature under evaluation (the gate's), also those a replay already passed. */
  features: Feature[];
  first: FirstReplays;
  app: RunningApp;
  context: EvaluationContext;
  evidenceDir: string;
}

/** Where and when the evaluation's verdicts were made, with their evidence files. */
export function verdictContext(
  input: RoleSessionInput,
  mode: OpenEvaluation['mode'],
  evidence: string[],
): VerdictContext {
  return {
    runId: input.runId,
    session: input.session,
    mode,
    at: new Date((input.clock ?? Date.now)()).toISOString(),
    evidence,
  };
}

/** The records of the open features: each submitted verdict, or `blocked` (its reason) for one left without. */
export function judgedVerdicts(
  evaluation: OpenEvaluation,
  judged: { collector: VerdictCollector; gate: CheckGate; evidence: string[] },
  blockedReason: string | undefined,
): VerdictRecord[] {
  const { collector, gate } = judged;
  return evaluation.first.open
    .map((feature) => feature.id)
    .filter((id) => collector.get(id) || collector.blockedReason(id) || blockedReason)
    .map((id) => {
      const why = collector.blockedReason(id) ?? (collector.get(id) ? undefined : blockedReason);
      const record = namingFailedCheck(
        toVerdictRecord(
          id,
          collector.get(id),
          verdictContext(evaluation.input, evaluation.mode, judged.evidence),
          why,
        ),
        evaluation.first.failures.get(id),
      );
      const ungrounded = collector.groundingFailures(id);
      const unrecordable = record.verdict === 'pass' ? gate.unrecorded.get(id) : undefined;
      return {
        ...record,
        ...(ungrounded.length ? { ungrounded } : {}),
        ...(unrecordable ? { unrecordable } : {}),
      };
    });
}

/** A failed regression verdict names the recorded check's failed step first, for the generator's feedback. */
function namingFailedCheck(record: VerdictRecord, failure: string | undefined): VerdictRecord {
  if (!failure || record.verdict !== 'fail') return record;
  return { ...record, issues: [`The ${failure}.`, ...record.issues] };
}
