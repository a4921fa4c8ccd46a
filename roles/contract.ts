/**
 * The sprint contract of a feature (Anthropic's harness design): before a generator builds it, the harness shows
 * what the evaluator will check — the feature's steps as the evaluator performs them, the texts it will look for
 * on the page, and, when an earlier pass recorded a check, that check's actions and expectations (what every
 * later sweep replays without a model). After the pass, the recorded check holds what was checked.
 */
import { type CheckFile, describeAction, describeExpectation } from '../checks/format.js';
import { quotedTexts } from '../checks/recorder.js';
import type { Feature } from '../handoff/formats.js';

/** What the evaluator will check for one feature. */
export interface SprintContract {
  steps: readonly string[];
  /** Texts the feature's description and steps quote: what the evaluator looks for on the page. */
  texts: string[];
  /** The feature's recorded check from an earlier pass, when it has one. */
  check?: { version: number; actions: string[]; expectations: string[] };
}

/** The contract of a feature, with its recorded check when there is one. */
export function sprintContract(feature: Feature, checkFile: CheckFile | null): SprintContract {
  const check = checkFile?.current;
  return {
    steps: feature.steps,
    texts: quotedTexts([feature.description, ...feature.steps]),
    ...(check
      ? {
          check: {
            version: check.version,
            actions: check.actions.map(describeAction),
            expectations: check.expectations.map(describeExpectation),
          },
        }
      : {}),
  };
}

/** The contract as the generator's first message shows it. */
export function contractText(contract: SprintContract): string {
  const lines = [
    'The evaluator performs these steps in a real browser, in this order, and passes the feature only when every one holds:',
    ...contract.steps.map((step, index) => `${index + 1}. ${step}`),
  ];
  if (contract.texts.length > 0) {
    lines.push(
      '',
      `It looks for these texts on the page, exactly as written (accessible names of boxes and buttons included; <…> and N stand for the data and numbers it uses): ${contract.texts.map((text) => `"${text}"`).join(', ')}.`,
    );
  }
  if (contract.check) {
    lines.push(
      '',
      `This feature passed before: its recorded check (v${contract.check.version}) replays these actions and expectations without a model after every change; keep them working, or the feature fails again.`,
      'Actions:',
      ...contract.check.actions.map((action, index) => `${index + 1}. ${action}`),
      'Expectations:',
      ...contract.check.expectations.map((expectation) => `- ${expectation}`),
    );
  }
  return lines.join('\n');
}
